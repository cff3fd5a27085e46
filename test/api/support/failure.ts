// The ApiError a call rejects with; anything else (a success, another error) fails the test.
import { ApiError } from '#core/api/index';

export async function failure(call: Promise<unknown>): Promise<ApiError> {
  try {
    await call;
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('Expected the call to fail with an ApiError, but it succeeded');
}

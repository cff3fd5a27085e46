// Secrets: API keys in the OS keychain, or in memory for the session only.
export * from './secret-store';

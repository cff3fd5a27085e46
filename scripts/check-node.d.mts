// Types of scripts/check-node.mjs, the one check of the running Node.js against package.json's engines.
export interface ParsedVersion {
  major: number;
  minor: number;
  patch: number;
  prerelease: string[];
}
export function parseVersion(text: unknown): ParsedVersion | null;
export function compareVersions(a: ParsedVersion, b: ParsedVersion): -1 | 0 | 1;
export function minimumOf(range: string): { text: string; version: ParsedVersion };
export function isTooOld(running: string, range: string): boolean;
export function requiredRange(packageJsonPath?: string): string;
export function refusal(running: string, range: string): string | null;

// Globals the renderer relies on: Svelte's and Vite's ambient types (.svelte, .css) and the preload's `window.splitbook`.
/// <reference types="svelte" />
/// <reference types="vite/client" />
import type { Bridge } from '#shared/contract/index';

declare global {
  interface Window {
    /** Set by the Electron preload; absent in the browser host, where the HTTP bridge is used. */
    splitbook?: Bridge;
  }
}

export {};

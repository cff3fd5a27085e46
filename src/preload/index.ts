// The preload: exposes the bridge as `window.splitbook` and nothing else.
import { contextBridge, ipcRenderer } from 'electron';
import { buildBridge } from './bridge';

contextBridge.exposeInMainWorld('splitbook', buildBridge(ipcRenderer));

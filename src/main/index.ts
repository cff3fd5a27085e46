// Electron's entry (electron-vite's convention): it only boots the Electron host.
import { startElectronHost } from './hosts/electron/start';

startElectronHost();

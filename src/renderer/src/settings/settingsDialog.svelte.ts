// Whether the Settings dialog is open: opened from the status bar, Ctrl/Cmd+, or the app menu.
class SettingsDialogState {
  open = $state(false);

  show() {
    this.open = true;
  }

  close() {
    this.open = false;
  }
}

export const settingsDialog = new SettingsDialogState();

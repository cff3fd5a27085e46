// Helpers for global shortcuts: where a key press should be left alone.

/** Text fields and selects keep their keys (typing "j" in search must not move the list). */
export function isEditable(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  if (target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement) return true;
  if (target instanceof HTMLInputElement) {
    return !['checkbox', 'radio', 'button', 'submit', 'reset', 'range', 'color'].includes(
      target.type,
    );
  }
  return false;
}

/** A modal dialog or a popup menu owns the keyboard while it is open. */
export function overlayOpen(): boolean {
  return document.querySelector('dialog[open], [role="menu"]') !== null;
}

/** Cmd on macOS, Ctrl elsewhere, as the shortcuts say "Ctrl/Cmd". */
export function hasCommandKey(event: KeyboardEvent): boolean {
  return event.ctrlKey || event.metaKey;
}

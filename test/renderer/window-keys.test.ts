// The window's global shortcuts (App.svelte), decided apart from the DOM: which press syncs, opens the
// settings, picks a store, finds or refreshes, which are left alone and which go to the list pane.
import { describe, expect, test } from 'vitest';
import { paneKey, windowShortcut, type WindowKey } from '../../src/renderer/src/lib/windowKeys';

const plain: WindowKey = {
  key: 'x',
  shiftKey: false,
  altKey: false,
  command: false,
  overlay: false,
  editable: false,
  resultsShown: false,
};
const press = (fields: Partial<WindowKey>) => windowShortcut({ ...plain, ...fields });

describe('windowShortcut', () => {
  test('Ctrl/Cmd+R syncs the store in scope, with Shift every store, even from a text field', () => {
    expect(press({ key: 'r', command: true })).toEqual({ kind: 'sync', all: false });
    expect(press({ key: 'R', command: true, shiftKey: true })).toEqual({ kind: 'sync', all: true });
    expect(press({ key: 'r', command: true, editable: true, overlay: true })).toEqual({
      kind: 'sync',
      all: false,
    });
    expect(press({ key: 'r', command: true, altKey: true })).toEqual({ kind: 'none' });
  });

  test('Ctrl/Cmd+, opens the settings unless a dialog or menu is open', () => {
    expect(press({ key: ',', command: true })).toEqual({ kind: 'settings' });
    expect(press({ key: ',', command: true, overlay: true })).toEqual({ kind: 'none' });
    expect(press({ key: ',', command: true, shiftKey: true })).toEqual({ kind: 'none' });
  });

  test('Ctrl/Cmd+digit picks a store by its place (0: all stores)', () => {
    expect(press({ key: '0', command: true })).toEqual({ kind: 'scope', index: 0 });
    expect(press({ key: '3', command: true, overlay: true })).toEqual({ kind: 'scope', index: 3 });
    expect(press({ key: '3', command: true, altKey: true })).toEqual({ kind: 'none' });
  });

  test('other chords, text fields, dialogs and menus keep their keys', () => {
    expect(press({ key: 'j', command: true })).toEqual({ kind: 'none' });
    expect(press({ key: '/', altKey: true })).toEqual({ kind: 'none' });
    expect(press({ key: '/', editable: true })).toEqual({ kind: 'none' });
    expect(press({ key: 'j', overlay: true })).toEqual({ kind: 'none' });
  });

  test('/ finds, r refreshes the results on screen, the rest goes to the list pane', () => {
    expect(press({ key: '/' })).toEqual({ kind: 'search' });
    expect(press({ key: 'r', resultsShown: true })).toEqual({ kind: 'refresh-results' });
    expect(press({ key: 'r' })).toEqual({ kind: 'pane' });
    expect(press({ key: 'r', shiftKey: true, resultsShown: true })).toEqual({ kind: 'pane' });
    expect(press({ key: 'ArrowDown' })).toEqual({ kind: 'pane' });
  });
});

describe('paneKey', () => {
  test('Esc in the detail pane goes back to the list', () => {
    expect(paneKey('Escape', { inDetail: true, onBody: false })).toBe('back-to-list');
    expect(paneKey('Escape', { inDetail: false, onBody: true })).toBe('if-taken');
  });

  test('j/k move from anywhere; other keys only when nothing has focus', () => {
    expect(paneKey('j', { inDetail: true, onBody: false })).toBe('move');
    expect(paneKey('k', { inDetail: false, onBody: false })).toBe('move');
    expect(paneKey('ArrowDown', { inDetail: false, onBody: true })).toBe('if-taken');
    expect(paneKey('ArrowDown', { inDetail: true, onBody: false })).toBe('none');
  });
});

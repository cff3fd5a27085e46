// How each kind of change reads in the Changes view: a word and a sign, never colour alone.
import type { ChangeKind } from '#shared/contract/index';

export const KIND_LABEL: Record<ChangeKind, { word: string; sign: string; tone: string }> = {
  added: { word: 'New', sign: '+', tone: 'info' },
  started: { word: 'Started', sign: '▶', tone: 'positive' },
  paused: { word: 'Paused', sign: '‖', tone: 'warning' },
  ended: { word: 'Ended', sign: '■', tone: 'info' },
  status: { word: 'Status', sign: '•', tone: 'neutral' },
  removed: { word: 'Removed', sign: '×', tone: 'negative' },
  restored: { word: 'Back', sign: '↺', tone: 'info' },
  tier: { word: 'Tier', sign: '★', tone: 'positive' },
  leader: { word: 'Leader', sign: '⇄', tone: 'warning' },
  probability: { word: 'P(win)', sign: '~', tone: 'neutral' },
  field: { word: 'Edited', sign: '✎', tone: 'neutral' },
};

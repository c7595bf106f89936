/**
 * Human output shows a stored text's control characters as escapes (\x1b):
 * printed raw, an imported file's escape sequences recoloured the terminal,
 * retitled it or moved the cursor over other output. Tabs and line breaks
 * stay; `--json` gives the exact text.
 */
export function visibleControls(text: string): string {
  return text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

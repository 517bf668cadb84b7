/**
 * The search terms of a text, for ranking tools: split at anything that is not a letter or digit
 * (dots, `_`, `-`, spaces) and between the words of camelCase, lower-cased, accents removed
 * (`Créer` is `creer`), and English plurals cut to their singular (`notes` is `note`, `entries`
 * is `entry`), so `listNotes`, `list_notes`, `notes.list` and "List notes" share their terms.
 *
 * @example
 * terms('notes.notes.listAll'); // ['note', 'note', 'list', 'all']
 */
export function terms(text: string): string[] {
  const words = text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .replace(/(\p{Ll}|\p{N})(\p{Lu})/gu, '$1 $2')
    .replace(/(\p{Lu}+)(\p{Lu}\p{Ll})/gu, '$1 $2')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u);
  const found: string[] = [];
  for (const word of words) if (word !== '') found.push(singular(word));
  return found;
}

function singular(word: string): string {
  if (word.length <= 3) return word;
  if (word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  if (word.endsWith('sses')) return word.slice(0, -2);
  if (word.endsWith('s') && !word.endsWith('ss') && !word.endsWith('us')) {
    return word.slice(0, -1);
  }
  return word;
}

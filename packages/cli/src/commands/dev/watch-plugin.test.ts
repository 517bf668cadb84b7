import { describe, expect, it } from 'vitest';
import { isEditorFile } from './watch-plugin.js';

describe('isEditorFile', () => {
  it('knows the files editors write beside the one being edited', () => {
    for (const file of [
      'src/.index.ts.swp',
      'src/.index.ts.swo',
      'src/4913',
      'src/index.ts~',
      'src/.#index.ts',
      'src/#index.ts#',
      'src/index.ts___jb_tmp___',
      'src/index.ts___jb_old___',
      '.DS_Store',
    ]) {
      expect(isEditorFile(file), file).toBe(true);
    }
  });

  it('takes source files, however they are named, as changes', () => {
    for (const file of [
      'src/index.ts',
      'src/v2.ts',
      'src/tools/swap.ts',
      'package.json',
      'src/#x.ts',
    ]) {
      expect(isEditorFile(file), file).toBe(false);
    }
  });
});

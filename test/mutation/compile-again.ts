import { compileAgain } from '../../db/compiled-query.js';

/**
 * For `make mutation` only (test/mutation/mocharc.json's `require`): each test compiles its queries afresh, so that a
 * query compiled in an earlier test — before StrykerJS switched the current mutant on, in the same process — cannot
 * hide the mutant (a mutant of a statement's CTE name survived that way).
 */
export const mochaHooks = {
  beforeEach(): void {
    compileAgain();
  },
};

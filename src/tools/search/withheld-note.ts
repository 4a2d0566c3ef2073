/**
 * What grep, find and ls tell the model when permission rules kept entries
 * of a walk out. Neither names nor a count: both would tell something about
 * what the rules protect; saying that something was left out keeps the
 * model from mistaking the result for the whole picture.
 * @module
 */

/** The notice for a search that skipped files (grep). */
export const WITHHELD_FROM_SEARCH = "Some paths were not searched: permission rules in settings withhold them";

/** The notice for a listing that left entries out (find, ls). */
export const WITHHELD_FROM_LISTING = "Some entries are not shown: permission rules in settings withhold them";

/**
 * Ids are the counter's value plus this: ten digits for the first nine
 * billion jobs of a queue, so that ids compare as strings as they do as
 * numbers. Redis breaks ties of equal scores by comparing members as
 * strings: delayed jobs due in the same millisecond are promoted, and jobs
 * finished in the same one are listed, in id order ("10" < "9" would not be).
 * Below 2^31 a list entry still holds one as a 4-byte integer.
 * (lua/includes/ids SPOOL_ID_BASE; producers draw them: lib/engine/ids.ts.)
 */
export const ID_BASE = 1_000_000_000;

/** The form of the ids a queue gives: a decimal number. Custom jobIds may not take it (validateJobId). */
export const NUMBERED_ID = /^(?:0|[1-9][0-9]*)$/;

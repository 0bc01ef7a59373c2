// How hard a password or a signing secret is to guess (issue 38 item 5). Length alone let
// "aaaaaaaaaaaa", "123456789012" and a JWT secret of 36 x "a" through. zxcvbn-ts (the
// maintained TypeScript port of Dropbox's zxcvbn) estimates the guesses an attacker needs who
// tries common passwords, repeats, sequences, keyboard walks, dates and l33t spellings first;
// the rule is a floor on that estimate.
import { ZxcvbnFactory } from '@zxcvbn-ts/core';
import { adjacencyGraphs, dictionary } from '@zxcvbn-ts/language-common';

/**
 * The estimate looks at the first 64 characters: the matchers' cost grows faster than the
 * length (a 44-character random secret took 75 ms with the default l33t search, 11 ms with
 * 4 substitutions; 64 characters 16 ms), and a prefix is a lower bound of the whole (guesses
 * multiply along the string), so the cut can only refuse, never pass, a weak text.
 */
const ESTIMATED_CHARS = 64;

/** zxcvbn's score 3, "safely unguessable": 10^8 guesses, beyond an online attack and slow offline against scrypt. */
export const PASSWORD_MIN_GUESSES_LOG10 = 8;
/**
 * An HS256 key is guessed offline from any token. zxcvbn counts a character no pattern
 * explains as 10 guesses (not 16 or 64), and random hex digits often look like years, dates
 * or runs to it: a random secret of the 32 bytes required, holding 128 bits (hex of 16 bytes)
 * or 192 (base64 of 24), was estimated at 10^27.1 and 10^30.2 at the least of 6,000 drawn.
 * The floor, 10^26, lets every such random secret through and refuses what repeats,
 * sequences, keyboard walks or words make guessable (36 x "a": 10^2.6;
 * "my-jwt-secret-my-jwt-secret-1234": 10^13; four dictionary words run together: 10^21.6).
 */
export const SECRET_MIN_GUESSES_LOG10 = 26;

let estimator: ZxcvbnFactory | null = null;

/** Built on first use (75 ms, its dictionaries are 2 MB): a daemon that checks nothing never pays. */
function zxcvbn(): ZxcvbnFactory {
  estimator ??= new ZxcvbnFactory({
    graphs: adjacencyGraphs,
    // the common passwords and diceware words; no language's word list (5 MB more, 0.7 s to load)
    dictionary: { ...dictionary },
    l33tMaxSubstitutions: 4,
  });
  return estimator;
}

/** What makes `text` easy to guess, in words (never the text itself), from the estimate's weakest pattern. */
const PATTERN_WORDS: Record<string, string> = {
  repeat: 'repeated characters',
  sequence: 'a sequence (abc, 123)',
  spatial: 'a keyboard pattern',
  dictionary: 'a common password or word',
  date: 'a date',
  regex: 'a year',
};

export interface Strength {
  /** log10 of the guesses the estimate says an attacker needs */
  guessesLog10: number;
  /** the pattern that makes most of it guessable, in words; null when it looks random */
  weakness: string | null;
}

export function strengthOf(text: string): Strength {
  const r = zxcvbn().check(text.slice(0, ESTIMATED_CHARS));
  const patterns = r.sequence.map((m) => m.pattern).filter((p) => p in PATTERN_WORDS);
  return { guessesLog10: r.guessesLog10, weakness: patterns.length ? PATTERN_WORDS[patterns[0]] : null };
}

/** The rule's refusal in words: what the estimate found, and how far from the floor. */
export function weakProblem(s: Strength, minLog10: number): string | null {
  if (s.guessesLog10 >= minLog10) return null;
  const found = s.weakness ? `${s.weakness}; ` : '';
  return `too easy to guess (${found}about 10^${Math.floor(s.guessesLog10)} guesses, at least 10^${minLog10} needed)`;
}

// The order in which named objects are listed: digit runs compare as numbers, so h-ext-12 comes
// before h-ext-102 (an operator numbers hosts, the plain string order did not). Deterministic and
// locale-free: outside digit runs it is the code-unit order, and equal numbers with a different
// number of leading zeros fall back to it as well.

const DIGIT = /[0-9]/;

/** Compares two names naturally; 0 only for equal strings. */
export function naturalCompare(a: string, b: string): number {
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (DIGIT.test(a[i]!) && DIGIT.test(b[j]!)) {
      let ie = i;
      while (ie < a.length && DIGIT.test(a[ie]!)) ie++;
      let je = j;
      while (je < b.length && DIGIT.test(b[je]!)) je++;
      const x = a.slice(i, ie).replace(/^0+(?=.)/, '');
      const y = b.slice(j, je).replace(/^0+(?=.)/, '');
      if (x.length !== y.length) return x.length - y.length;
      if (x !== y) return x < y ? -1 : 1;
      i = ie;
      j = je;
    } else {
      if (a[i] !== b[j]) return a[i]! < b[j]! ? -1 : 1;
      i++;
      j++;
    }
  }
  if (i < a.length || j < b.length) return i < a.length ? 1 : -1;
  return a < b ? -1 : a > b ? 1 : 0; // same but for leading zeros: the plain order decides
}

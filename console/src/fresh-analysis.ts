// The analysis of a rule table as the badges show it, and whether it is the candidate's of
// now. It is asked for after each load of the rules (so it is never older than the rows), and
// it is marked pending from the moment anything changes (a move pressed here, a change made
// elsewhere, a reload begun) until the answer asked after that change arrives: at 20,000
// policies the analysis takes seconds, and a badge like "shadowed by 332, 531" stayed 10-20 s
// on a rule moved to the top (issue 43). A pending badge is shown as such, never as current.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from './api';
import { revision } from './state';
import type { Analysis } from './types';

export interface FreshAnalysis {
  analysis: Analysis | null;
  /** a change was made after the analysis shown was asked for */
  pending: boolean;
  /** marks the analysis shown as older than the rules (call at a change made here) */
  markPending: () => void;
}

export function useFreshAnalysis(which: 'running' | 'candidate', rulesLoaded: unknown): FreshAnalysis {
  const [state, setState] = useState<{ analysis: Analysis | null; pending: boolean }>({ analysis: null, pending: true });
  const asked = useRef(0);
  const markPending = () => setState((s) => (s.pending ? s : { ...s, pending: true }));
  // a change anywhere (the live revision: versions, the session's change count) makes it old
  // (the rules page reloads on it too, and that load asks for the analysis again)
  const rev = revision.value;
  const first = useRef(true);
  useEffect(() => {
    if (first.current) first.current = false;
    else markPending();
  }, [rev]);
  useEffect(() => {
    if (rulesLoaded === null || rulesLoaded === undefined) return;
    const n = ++asked.current;
    markPending();
    const q = which === 'candidate' ? '?config=candidate' : '';
    void api<Analysis>('GET', `/api/analysis${q}`).catch(() => null).then((analysis) => {
      // only the answer to the latest question: an older one is for rows no longer shown
      if (n === asked.current) setState({ analysis, pending: false });
    });
  }, [rulesLoaded]);
  return { ...state, markPending };
}

// Moves of a rule table, queued in the order they were asked for and shown at once. Each move
// (a key press, a drop) is applied to the order on the screen straight away and its request
// goes to the API only after the previous one answered; its reference rule is the neighbour
// on the screen at the time of the press, which is the neighbour the API will have by then.
// Computing the move from the rows of the last load (as before) lost a press made while the
// table reloaded: three Arrow Up presses 400 ms apart moved a rule two places, and the focus,
// left on the row's place, went to another rule (issue 29).
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { Move } from './types';

/** `ids` after `id` is moved as `body` says (the API's move, src/config/moves.ts). */
export function applyMove(ids: number[], id: number, body: Move): number[] {
  const rest = ids.filter((x) => x !== id);
  if (body.position === 'top') return [id, ...rest];
  if (body.position === 'bottom') return [...rest, id];
  const at = rest.indexOf(body.reference_id ?? -1);
  if (at < 0) return ids;
  rest.splice(body.position === 'before' ? at : at + 1, 0, id);
  return rest;
}

/**
 * The rules in the order shown: the loaded ones, or while moves are pending, rearranged as
 * they will be. `send` makes one move's request (false: it failed; the queue is dropped and
 * the table reloaded). `reload` loads the table again once the queue is empty.
 */
export function useMoveQueue<R extends { id: number }>(loaded: R[] | null, send: (id: number, body: Move) => Promise<boolean>, reload: () => void) {
  const [order, setOrder] = useState<number[] | null>(null);
  const orderRef = useRef<number[] | null>(null);
  const chain = useRef<Promise<void>>(Promise.resolve());
  const pending = useRef(0);
  // loads seen since the queue emptied: the optimistic order is dropped on the load that
  // agrees with it, or at the latest on the second (a change made elsewhere meanwhile)
  const sinceDrain = useRef<number | null>(null);

  const rules = useMemo(() => {
    if (!loaded || !order) return loaded;
    const byId = new Map(loaded.map((r) => [r.id, r]));
    const out = order.map((id) => byId.get(id)).filter((r): r is R => r !== undefined);
    const placed = new Set(order);
    return [...out, ...loaded.filter((r) => !placed.has(r.id))];
  }, [loaded, order]);

  useEffect(() => {
    if (!loaded || pending.current > 0 || sinceDrain.current === null) return;
    sinceDrain.current++;
    const same = orderRef.current !== null && loaded.length === orderRef.current.length && loaded.every((r, i) => r.id === orderRef.current![i]);
    if (same || sinceDrain.current >= 2) {
      orderRef.current = null;
      sinceDrain.current = null;
      setOrder(null);
    }
  }, [loaded]);

  // a failed move drops the moves queued after it: they were computed from an order the API
  // does not have; each queued move knows the generation it belongs to
  const generation = useRef(0);
  // `onSent`: after the API took the move (its 2xx), never before: a refused move is undone
  // and nothing says it happened
  const enqueue = (id: number, body: Move, onSent?: () => void) => {
    const base = orderRef.current ?? (rules ?? []).map((r) => r.id);
    orderRef.current = applyMove(base, id, body);
    setOrder(orderRef.current);
    pending.current++;
    sinceDrain.current = null;
    const mine = generation.current;
    chain.current = chain.current.then(async () => {
      if (mine !== generation.current) return;
      const ok = await send(id, body);
      pending.current--;
      if (ok) onSent?.();
      if (!ok) {
        generation.current++;
        pending.current = 0;
        orderRef.current = null;
        setOrder(null);
        reload();
      } else if (pending.current === 0) {
        sinceDrain.current = 0;
        reload();
      }
    });
  };
  return { rules, enqueue };
}

// What every page shares: the route, the running/candidate choice, the live status of the
// daemon (version and session lock), and the rules a packet trace matched.
import { computed, signal } from '@preact/signals';
import { api, login } from './api';
import type { Session, Status } from './types';
import { allows, type PermissionNeed } from '../../src/auth/roles';
import { SseParser } from '../../src/cli/sse-parser';

/** The page's path and query ("/policies?filter=shadowed"). */
export const route = signal(location.pathname + location.search);

export function navigate(href: string): void {
  if (href === route.value) return;
  history.pushState(null, '', href);
  route.value = href;
  window.scrollTo(0, 0);
}
window.addEventListener('popstate', () => {
  route.value = location.pathname + location.search;
});

/** Whether the logged-in role meets `need` (src/auth/roles.ts, the table the API enforces):
 * the console offers only what the role may do. */
export function allowed(need: PermissionNeed): boolean {
  const l = login.value;
  return l !== null && allows(l.role, need);
}

/** Which configuration the resource pages show. */
export const view = signal<'running' | 'candidate'>('running');

/** GET /api/status, refreshed by the live loop. */
export const status = signal<Status | null>(null);

/** Changes whenever the running version or the session changes, here or elsewhere: pages
 * reload their data when it does. */
export const revision = computed(() => {
  const s = status.value;
  if (!s) return '';
  const pending = (s.session as Session | null)?.pending_confirm;
  return `${s.version}/${s.session?.owner ?? ''}/${s.session?.started_at ?? ''}/${s.session?.changes ?? 0}/${pending?.version ?? ''}`;
});

/** The rules the last packet trace matched: highlighted in their tables. */
export const traced = signal<{ policy: number | null; nat: number | null; route: number | null }>({ policy: null, nat: null, route: null });

/** A message for the whole page (a 403, a commit's result); polite live region. */
export const notice = signal<{ text: string; kind: 'ok' | 'error' } | null>(null);

export function say(text: string, kind: 'ok' | 'error' = 'ok'): void {
  notice.value = { text, kind };
}

/** Reads the status now (after one's own change) rather than at the next poll. */
export async function refreshStatus(): Promise<void> {
  if (!login.value) return;
  try {
    status.value = await api<Status>('GET', '/api/status');
  } catch {
    // the live loop tries again; a 401 has already ended the login
  }
}

/** The candidate view needs a session of one's own; back to running when it ends. */
export const ownSession = computed(() => {
  const s = status.value?.session;
  return !!s && s.active && s.owner === login.value?.username;
});

/** Polling while no events stream is open; with one, a slow poll keeps the change count. */
const POLL_MS = 2000;
const POLL_WITH_STREAM_MS = 15000;
/** The events the stream sends (GET /api/events): each one re-reads the status. */
const EVENT_TYPES = ['commit', 'rollback', 'confirm', 'session', 'node', 'ha', 'resync'];

/** Whether the events stream is open (else the console polls). */
export const streaming = signal(false);
/** The wait before the stream is opened again after a drop (the `retry:` the daemon sends). */
const RETRY_MS = 3000;

let timer: ReturnType<typeof setInterval> | null = null;
let stream: AbortController | null = null;

function poll(ms: number): void {
  if (timer) clearInterval(timer);
  timer = setInterval(() => void refreshStatus(), ms);
}

/**
 * Live updates while logged in: the events stream (GET /api/events) where the daemon has one,
 * each event re-reading the status; polling every 2 s where it has not or while the stream
 * reconnects. A commit or a lock change made elsewhere shows without a reload either way.
 */
export function startLive(): void {
  if (timer) return;
  void refreshStatus();
  poll(POLL_MS);
  const token = login.value?.token;
  if (!token) return;
  stream = new AbortController();
  void follow(token, stream.signal);
}

/**
 * Reads the events stream with fetch() and the Authorization header, never EventSource, which
 * can only put the token in the URL, where proxies log it (docs/api.md, Events). Like an
 * EventSource it reconnects after a drop, resuming with Last-Event-ID; it gives up where the
 * daemon has no stream (404) or refuses the token (401: the status read ends the login).
 */
async function follow(token: string, signal: AbortSignal): Promise<void> {
  let last: string | null = null;
  while (!signal.aborted) {
    let wait = RETRY_MS;
    try {
      const headers: Record<string, string> = { Authorization: `Bearer ${token}`, Accept: 'text/event-stream' };
      if (last !== null) headers['Last-Event-ID'] = last;
      const res = await fetch('/api/events', { headers, signal });
      if (res.status === 429) wait = Math.max(RETRY_MS, Number(res.headers.get('Retry-After')) * 1000 || 0);
      else if (res.status < 500 && (!res.ok || !res.body)) return void refreshStatus(); // 5xx: tried again
      else if (res.ok && res.body) {
        streaming.value = true;
        poll(POLL_WITH_STREAM_MS);
        void refreshStatus(); // what happened while it was closed
        const parser = new SseParser((m) => {
          if (m.id !== null) last = m.id;
          if (EVENT_TYPES.includes(m.event)) void refreshStatus();
        });
        const reader = res.body.getReader();
        const decoder = new TextDecoder();
        for (let r = await reader.read(); !r.done; r = await reader.read()) parser.push(decoder.decode(r.value, { stream: true }));
      }
    } catch {
      // a dropped connection (or stopLive's abort): tried again below unless stopped
    }
    if (signal.aborted) return;
    streaming.value = false;
    poll(POLL_MS);
    await new Promise((r) => setTimeout(r, wait));
  }
}

export function stopLive(): void {
  if (timer) clearInterval(timer);
  timer = null;
  stream?.abort();
  stream = null;
  streaming.value = false;
  status.value = null;
}

/**
 * A change needs the caller's session: one is begun when the caller holds none (as on a
 * firewall whose first edit takes the configuration lock); another user's session is the
 * API's 409, shown as it is.
 */
export async function ensureSession(): Promise<void> {
  if (ownSession.value) return;
  await api('POST', '/api/config/begin');
  await refreshStatus();
}

// the candidate is what one edits: shown while one's own session lasts, the running version after
ownSession.subscribe((own) => {
  view.value = own ? 'candidate' : 'running';
});

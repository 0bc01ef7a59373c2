// The frame of every page once logged in: who is logged in (user, role, token expiry), the
// navigation, the live lock indicator, and the page of the current route.
import { useEffect, useState } from 'preact/hooks';
import { login, logOut, endLogin } from './api';
import { AuditPage } from './audit';
import { ConnectionsPage } from './connections';
import { TrafficPageView } from './traffic';
import { LoginPage } from './login';
import { Overview } from './overview';
import { ResourcePage } from './resource-page';
import { RESOURCE_DEFS } from './resources';
import { RulesPage } from './rules-page';
import { SessionPage } from './session';
import { SearchPage } from './search';
import { allowed, notice, route, startLive, status, stopLive, streaming } from './state';
import { TracerPage } from './tracer';
import { Link } from './ui';
import { plural } from './format';
import { UsersPage } from './users';
import { TokensPage } from './tokens';
import { DynamicSetsPage } from './dynamic-sets';
import { VersionsPage } from './versions';
import type { PermissionNeed } from '../../src/auth/roles';
import type { Session } from './types';

interface NavItem { href: string; label: string; permission?: PermissionNeed }
const NAV: NavItem[] = [
  { href: '/', label: 'Overview' },
  { href: '/policies', label: 'Policies' },
  { href: '/nat', label: 'NAT' },
  { href: '/local-policies', label: 'Local policies' },
  { href: '/addresses', label: 'Addresses' },
  { href: '/services', label: 'Services' },
  { href: '/address-groups', label: 'Address groups' },
  { href: '/service-groups', label: 'Service groups' },
  { href: '/zones', label: 'Zones' },
  { href: '/interfaces', label: 'Interfaces' },
  { href: '/vlans', label: 'VLANs' },
  { href: '/dhcp', label: 'DHCP' },
  { href: '/routes', label: 'Routes' },
  { href: '/dynamic-sets', label: 'Dynamic sets' },
  { href: '/schedules', label: 'Schedules' },
  { href: '/session', label: 'Session' },
  { href: '/versions', label: 'Versions' },
  { href: '/trace', label: 'Packet tracer' },
  { href: '/connections', label: 'Connections' },
  { href: '/traffic', label: 'Traffic log' },
  { href: '/search', label: 'Search' },
  { href: '/audit', label: 'Audit', permission: 'audit' },
  { href: '/users', label: 'Users', permission: ['users', 'audit'] },
  { href: '/tokens', label: 'API tokens', permission: ['tokens', 'audit'] },
];

function pageOf(path: string) {
  switch (path) {
    case '/': return <Overview />;
    case '/policies': return <RulesPage key="policies" kind="policies" />;
    case '/nat': return <RulesPage key="nat" kind="nat" />;
    case '/addresses': case '/services': case '/address-groups': case '/service-groups': case '/zones': case '/interfaces': case '/vlans': case '/dhcp': case '/routes': case '/local-policies': case '/schedules': {
      const def = RESOURCE_DEFS[path.slice(1) as 'addresses'];
      return <ResourcePage key={path} def={def} />;
    }
    case '/dynamic-sets': return <DynamicSetsPage />;
    case '/session': return <SessionPage />;
    case '/versions': return <VersionsPage />;
    case '/trace': return <TracerPage />;
    case '/connections': return <ConnectionsPage />;
    case '/traffic': return <TrafficPageView />;
    case '/search': return <SearchPage />;
    case '/audit': return allowed('audit') ? <AuditPage /> : <NotAllowed />;
    case '/users': return allowed(['users', 'audit']) ? <UsersPage /> : <NotAllowed />;
    case '/tokens': return allowed(['tokens', 'audit']) ? <TokensPage /> : <NotAllowed />;
    default: return <section class="page"><h1>Not found</h1><p>No page at {path}.</p></section>;
  }
}

function NotAllowed() {
  return <section class="page"><h1>Not allowed</h1><p>Your role may not see this page.</p></section>;
}

/** Seconds until the token expires, ticking; at 0 the login ends. */
function useExpiry(expires: number | null): number | null {
  const [now, setNow] = useState(() => Date.now() / 1000);
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now() / 1000), 1000);
    return () => clearInterval(t);
  }, []);
  const left = expires === null ? null : Math.max(0, Math.round(expires - now));
  useEffect(() => {
    if (left === 0) endLogin('Your login expired. Please log in again.');
  }, [left === 0]);
  return left;
}

function remaining(s: number): string {
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  return h > 0 ? `${h} h ${m} min` : m > 0 ? `${m} min` : `${s} s`;
}

function Frame() {
  const me = login.value!;
  const left = useExpiry(me.expires);
  const path = route.value.split('?')[0];
  const s = status.value;
  const lock = s?.session?.active ? `locked by ${s.session.owner} (${plural(s.session.changes, 'change')})` : 'unlocked';
  const pending = (s?.session as Session | null | undefined)?.pending_confirm;
  useEffect(() => {
    startLive();
    return stopLive;
  }, []);
  useEffect(() => { notice.value = null; }, [path]);
  return (
    <>
      <a class="skip" href="#main">Skip to content</a>
      <header class="top">
        <span class="brand">fwd</span>
        <span class="live" role="status" aria-live="polite" data-testid="live">version {s?.version ?? '…'} · {lock}{pending ? ` · version ${pending.version} awaits confirmation` : ''}{streaming.value ? '' : ' · polling'}</span>
        <span class="who" data-testid="who">
          <span>{me.username}</span> <span class={`role role-${me.role}`}>{me.role}</span>{' '}
          {me.tokenName && <span>token {me.tokenName} </span>}
          {left === null || me.expires === null ? <span>no expiry</span> : <span title={new Date(me.expires * 1000).toISOString()}>login expires in {remaining(left)}</span>}
        </span>
        <button type="button" onClick={() => void logOut()}>Log out</button>
      </header>
      <nav aria-label="Main">
        <ul>
          {NAV.filter((n) => !n.permission || allowed(n.permission)).map((n) => (
            <li key={n.href}><Link href={n.href} current={n.href === path}>{n.label}</Link></li>
          ))}
        </ul>
      </nav>
      <main id="main" tabIndex={-1}>
        {notice.value && (
          <p class={`notice notice-${notice.value.kind}`} role={notice.value.kind === 'error' ? 'alert' : 'status'}>
            {notice.value.text} <button type="button" class="link" onClick={() => { notice.value = null; }}>Dismiss</button>
          </p>
        )}
        {pageOf(path)}
      </main>
    </>
  );
}

export function App() {
  return login.value ? <Frame /> : <LoginPage />;
}

// FW_ALLOWED_HOSTS: the names a request's Host may give (the others get 421). A page on an
// attacker's domain that resolves to the daemon's address (DNS rebinding) is then refused,
// its Host being the attacker's name.

/**
 * The host name of a Host header or a list entry: lower case, without its port or a final
 * dot, an IPv6 address in brackets; "" when it is not a host name.
 */
export function hostName(value: string): string {
  const v = value.trim().toLowerCase();
  const m = /^(\[[0-9a-f:.]+\]|[a-z0-9._-]+)(?::\d{1,5})?$/.exec(v);
  if (!m) return '';
  return m[1].endsWith('.') ? m[1].slice(0, -1) : m[1];
}

/** The names of FW_ALLOWED_HOSTS (comma-separated; a bare IPv6 address may go without brackets). */
export function parseAllowedHosts(raw: string): string[] {
  return raw.split(',').map((s) => s.trim()).filter(Boolean).map((entry) => {
    const name = hostName(/^[0-9a-f:.]*:[0-9a-f:.]*:[0-9a-f:.]*$/i.test(entry) ? `[${entry}]` : entry);
    if (name === '') throw new Error(`FW_ALLOWED_HOSTS: "${entry}" is not a host name`);
    return name;
  });
}

// FW_SYSLOG: where records are forwarded, a comma-separated list of `udp://host:port`,
// `tcp://host:port` and `tls://host:port` (an IPv6 host in brackets). Read once at start-up.

export type SyslogProtocol = 'udp' | 'tcp' | 'tls';

export interface SyslogTarget {
  protocol: SyslogProtocol;
  host: string;
  port: number;
  /** the target as configured, normalised: the label of its metrics and status */
  url: string;
}

/** The targets of FW_SYSLOG ("" : none); throws with the setting's name on a wrong item. */
export function parseSyslogTargets(raw: string): SyslogTarget[] {
  const seen = new Set<string>();
  return raw.split(',').map((s) => s.trim()).filter(Boolean).map((item) => {
    const m = /^(udp|tcp|tls):\/\/(?:\[([0-9a-fA-F:.]+)\]|([A-Za-z0-9.-]+)):(\d{1,5})$/.exec(item);
    const port = m ? Number(m[4]) : 0;
    if (!m || port < 1 || port > 65535) {
      throw new Error(`FW_SYSLOG: "${item}" is not udp://host:port, tcp://host:port or tls://host:port`);
    }
    const host = m[2] ?? m[3];
    const url = `${m[1]}://${m[2] ? `[${host}]` : host.toLowerCase()}:${port}`;
    if (seen.has(url)) throw new Error(`FW_SYSLOG: "${item}" is listed twice`);
    seen.add(url);
    return { protocol: m[1] as SyslogProtocol, host: m[2] ? host : host.toLowerCase(), port, url };
  });
}

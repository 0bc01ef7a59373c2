// One syslog message as RFC 5424 spells it:
//   <PRI>1 TIMESTAMP HOSTNAME APP-NAME PROCID MSGID [SD-ID PARAM="VALUE" ...] MSG
// The forwarder takes any record in this generic shape (an audit entry, a traffic record) and
// formats it once; the transports only frame the bytes (src/syslog/transports.ts).

/** Facilities used here (RFC 5424 6.2.1). */
export const Facility = { auth: 4, logAudit: 13, local0: 16 } as const;

/** Severities (RFC 5424 6.2.1). */
export const Severity = { error: 3, warning: 4, notice: 5, info: 6 } as const;

/**
 * The private enterprise number of our SD-IDs. 32473 is the number IANA reserves for
 * documentation and examples (RFC 5612): the project has none of its own, and an SD-ID that
 * is not registered must carry one ("audit@32473").
 */
export const ENTERPRISE = 32473;

/** A value of a structured-data parameter; undefined and null leave the parameter out. */
export type ParamValue = string | number | boolean | null | undefined;

/** A record to forward, whatever produced it. */
export interface SyslogRecord {
  facility: number;
  severity: number;
  /** unix ms */
  time: number;
  /** "AUDIT", "TRAFFIC": what kind of record (RFC 5424 MSGID, at most 32 printable characters) */
  msgid: string;
  /** the SD-ID's name before "@"; the parameters follow in the order given */
  sdName: string;
  params: Record<string, ParamValue>;
  /** the free-form text after the structured data */
  msg: string;
}

/** A parameter value longer than this is cut: one record never outgrows what a receiver takes. */
const PARAM_MAX = 1024;
/** The MSG part is cut past this many characters (rsyslog's default message limit is 8 KiB). */
const MSG_MAX = 2048;

/** PARAM-VALUE escaping (RFC 5424 6.3.3): '"', '\' and ']' take a backslash. */
export function escapeParam(value: string): string {
  return value.replace(/["\\\]]/g, '\\$&');
}

/** An SD-NAME: 1 to 32 printable US-ASCII characters but '=', ' ', ']' and '"' (RFC 5424 6.3.2). */
function sdName(name: string): string {
  const clean = name.replace(/[^\x21-\x7e]|[=\]"]/g, '').slice(0, 32);
  return clean || '-';
}

/** A header field (HOSTNAME, APP-NAME, PROCID, MSGID): printable US-ASCII, bounded, "-" when empty (RFC 5424 6.2). */
export function headerField(value: string, max: number): string {
  const clean = value.replace(/[^\x21-\x7e]/g, '').slice(0, max);
  return clean || '-';
}

function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 3)}...` : text;
}

/** The structured data element of a record: `[name@32473 k="v" ...]`. */
function structuredData(r: SyslogRecord): string {
  let out = `[${sdName(`${r.sdName}@${ENTERPRISE}`)}`;
  for (const [k, v] of Object.entries(r.params)) {
    if (v === undefined || v === null) continue;
    out += ` ${sdName(k)}="${escapeParam(cut(String(v), PARAM_MAX))}"`;
  }
  return `${out}]`;
}

/** Who sends: the header fields that are the same in every message of this process. */
export interface Origin {
  hostname: string;
  appName: string;
  procId: string;
}

/**
 * The RFC 5424 text of a record. MSG carries the UTF-8 byte order mark only when it is not
 * plain ASCII (6.4: a UTF-8 MSG starts with the BOM; ASCII is also MSG-ANY without it), so
 * that the common case reads cleanly in any receiver's file.
 */
export function formatRecord(r: SyslogRecord, origin: Origin): string {
  const pri = r.facility * 8 + r.severity;
  const time = new Date(r.time).toISOString();
  const msg = cut(r.msg, MSG_MAX);
  // eslint-disable-next-line no-control-regex
  const body = msg === '' ? '' : /^[\x00-\x7f]*$/.test(msg) ? ` ${msg}` : ` \ufeff${msg}`;
  return `<${pri}>1 ${time} ${origin.hostname} ${origin.appName} ${origin.procId} ${headerField(r.msgid, 32)} ${structuredData(r)}${body}`;
}

// Whether the kernel can create the kinds of link a configuration needs (VLANs: 802.1Q, module
// 8021q), asked without changing anything: `ip link add NAME type KIND ...` with no parent
// link is refused either way, with "Unknown device type" when the kernel has no such kind
// (after trying to load its module, as a real creation would) and with another complaint
// otherwise. Validate and commit then refuse what the apply would fail on.
import type { Host } from './host';

interface Kind {
  /** the arguments after `type`, short of a parent link */
  args: string[];
  /** what the operator must give the kernel */
  needs: string;
}

const KINDS: Record<'vlan', Kind> = {
  vlan: { args: ['vlan', 'id', '1'], needs: '802.1Q support (module 8021q: modprobe 8021q, or a kernel built with CONFIG_VLAN_8021Q)' },
};

/** A name no configuration can hold (interfaces come from the inventory), short enough for the kernel. */
const PROBE_LINK = `fwdprobe${process.pid % 1_000_000}`;

/** Why the kernel cannot create links of `kind`, or null when it can. */
export async function linkKindProblem(host: Host, kind: keyof typeof KINDS): Promise<string | null> {
  const k = KINDS[kind];
  try {
    await host.ip(['link', 'add', PROBE_LINK, 'type', ...k.args]);
    await host.ip(['link', 'delete', PROBE_LINK]).catch(() => undefined); // never expected: no parent
    return null;
  } catch (e) {
    const said = e instanceof Error ? e.message : String(e);
    if (!/Unknown device type/i.test(said)) return null;
    return `this kernel cannot create ${kind} links ("ip link add ... type ${kind}": Unknown device type); it needs ${k.needs}`;
  }
}

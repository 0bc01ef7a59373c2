// The packet and the answer of eval.md, shared by the reference evaluator and the compiled
// matchers. The answer has no `version`: the caller (src/api) adds the running version.
import type { Family } from '../config/net';
import type { NatType, PolicyAction } from '../config/types';

export const PROTO_ICMP = 1;
export const PROTO_TCP = 6;
export const PROTO_UDP = 17;

/** A parsed, validated packet (parsePacket, built by packetOf). Addresses are canonical text,
 * their bytes, and their words. Read-only: parsePacket's packets compute the text and bytes
 * from the words when first read. */
export interface Packet {
  readonly family: Family;
  readonly srcIp: string;
  readonly dstIp: string;
  readonly src: Uint8Array; // 4 or 16 bytes, network order
  readonly dst: Uint8Array;
  // The addresses as the int32 words the compiled matchers take (network order; IPv4: word 0,
  // the others 0), held in the object itself: CompiledConfig.eval() reads no byte array (each
  // one another object to fetch from memory) and converts nothing.
  readonly s0: number;
  readonly s1: number;
  readonly s2: number;
  readonly s3: number;
  readonly d0: number;
  readonly d1: number;
  readonly d2: number;
  readonly d3: number;
  readonly protocol: number; // 0-255; tcp 6, udp 17, icmp 1
  // 0-65535; 0 when the protocol is not tcp/udp and no port was given. ICMP and ICMPv6:
  // icmp-type << 8 | icmp-code (each 0 when not given), where a service's type and code sit
  // in the service key space (src/eval/sets.ts)
  readonly dstPort: number;
  readonly srcPort: number | null;
  readonly inInterface: string | null; // null: not given (an empty string counts as not given)
  readonly srcZone: string | null;
  readonly dstZone: string | null;
}

export type EvalAction = 'allow' | 'deny';
// broadcast, multicast (issue 41): a packet the kernel never forwards (docs/eval.md)
// local-policy (issue 41): a packet to the firewall itself, judged by the local policies and
// then the links' management shortcuts; `policy` is then the local policy that matched
export type EvalReason = 'policy' | 'default-deny' | 'no-route' | 'broadcast' | 'multicast' | 'local-policy';

export interface RouteAnswer {
  id: number | null; // null: a connected subnet
  destination: string;
}

export interface NatAnswer {
  id: number;
  type: NatType;
  translatedIP: string;
  translatedPort: string;
  /** a static rule only (issue 41): the address translatedIP replaces, the source (outbound)
   * or the destination (inbound) */
  translates?: 'source' | 'destination';
}

export interface PolicyAnswer {
  id: number;
  action: PolicyAction;
  log: boolean;
}

export interface EvalResult {
  action: EvalAction;
  reason: EvalReason;
  srcZone: string | null;
  dstZone: string | null;
  egressInterface: string | null;
  route: RouteAnswer | null;
  nat: NatAnswer | null;
  policy: PolicyAnswer | null;
}

/** What the reference evaluator and a CompiledConfig both offer. eval throws FwError
 * ERR_NET_2003 when the packet names an unknown interface or zone. */
export interface Evaluator {
  eval(p: Packet): EvalResult;
}

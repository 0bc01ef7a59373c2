// What the traffic pages say on a node without a data plane (FW_DATAPLANE=none: the daemon
// manages the configuration, no kernel enforces it), instead of "0 records of node ..." that
// reads as a quiet network (issue 43).
export const NO_DATAPLANE = 'No data plane on this node (FW_DATAPLANE=none): no traffic passes through it, so nothing is logged. Traffic is logged where a node runs the kernel data plane (FW_DATAPLANE=linux).';
export const NO_CONNTRACK = 'No data plane on this node (FW_DATAPLANE=none): there are no live connections to show. They are tracked where a node runs the kernel data plane (FW_DATAPLANE=linux).';

// Read models of routes, security policies and NAT rules, exactly as firewall-api.md spells
// them. A policy embeds the full Zone, Address and Service read models (null for any zone or
// address, [] for any service); a NAT rule names its addresses and service ("" for any).
import type { ConfigDoc, NatRule, NatType, PolicyAction, PolicyObj, RouteObj } from '../types';
import { renderAddress, renderService, renderZone, type AddressModel, type ServiceModel, type ZoneModel } from './objects';

export interface RouteModel {
  id: number;
  description: string;
  destination: string;
  gateway: string;
  interface: string;
  metric: number;
}

export function renderRoute(r: RouteObj): RouteModel {
  return { id: r.id, description: r.description, destination: r.destination, gateway: r.gateway, interface: r.interface, metric: r.metric };
}

export interface PolicyModel {
  id: number;
  action: PolicyAction;
  srcZone: ZoneModel | null;
  dstZone: ZoneModel | null;
  srcAddr: AddressModel | null;
  dstAddr: AddressModel | null;
  services: ServiceModel[];
  log: boolean;
}

function zoneModel(doc: ConfigDoc, name: string): ZoneModel | null {
  const z = name === '' ? undefined : doc.zones.get(name);
  return z ? renderZone(doc, z) : null;
}

function addressModel(doc: ConfigDoc, name: string): AddressModel | null {
  const a = name === '' ? undefined : doc.addresses.get(name);
  return a ? renderAddress(a) : null;
}

export function renderPolicy(doc: ConfigDoc, p: PolicyObj): PolicyModel {
  const services: ServiceModel[] = [];
  for (const name of p.services) {
    const s = doc.services.get(name);
    if (s) services.push(renderService(s));
  }
  return {
    id: p.id,
    action: p.action,
    srcZone: zoneModel(doc, p.srcZone),
    dstZone: zoneModel(doc, p.dstZone),
    srcAddr: addressModel(doc, p.srcAddr),
    dstAddr: addressModel(doc, p.dstAddr),
    services,
    log: p.log,
  };
}

export interface NatModel {
  id: number;
  description: string;
  type: NatType;
  srcZone: ZoneModel | null;
  dstZone: ZoneModel | null;
  srcAddress: string;
  dstAddress: string;
  service: string;
  translatedIP: string;
  translatedPort: string;
  outInterface: string;
}

export function renderNat(doc: ConfigDoc, n: NatRule): NatModel {
  return {
    id: n.id,
    description: n.description,
    type: n.type,
    srcZone: zoneModel(doc, n.srcZone),
    dstZone: zoneModel(doc, n.dstZone),
    srcAddress: n.srcAddr,
    dstAddress: n.dstAddr,
    service: n.service,
    translatedIP: n.translatedIp,
    translatedPort: n.translatedPort,
    outInterface: n.outInterface,
  };
}

// Where the platform's outbound MCP calls may not go: link-local addresses (169.254.0.0/16, fe80::/10) and the cloud
// metadata services (their addresses and host names), unless configuration allows them. Checked twice: on the URL's
// host before anything is sent, and on every address a host name resolves to when the connection is opened (the
// undici lookup below), so a name that resolves to a metadata address — or is re-pointed there later — is refused.
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { BlockList, isIP } from 'node:net';
import type { Agent } from 'undici';
import { lazyModule } from '#kernel';

// Loaded with the first pool: an api that never calls out never pays undici's memory.
const undici = lazyModule<typeof import('undici')>('undici');

const FORBIDDEN = new BlockList();
FORBIDDEN.addSubnet('169.254.0.0', 16, 'ipv4');
// Alibaba Cloud's metadata service sits outside the link-local range.
FORBIDDEN.addAddress('100.100.100.200', 'ipv4');
FORBIDDEN.addSubnet('fe80::', 10, 'ipv6');
// AWS's IPv6 metadata endpoint.
FORBIDDEN.addAddress('fd00:ec2::254', 'ipv6');

const METADATA_HOSTS = new Set([
  'metadata',
  'metadata.google.internal',
  'metadata.goog',
  'metadata.azure.com',
  'instance-data',
  'instance-data.ec2.internal',
]);

export class OutboundAddressRefused extends Error {
  constructor(readonly target: string) {
    super(`${target} is a link-local or cloud-metadata address, which MCP servers may not use`);
    this.name = 'OutboundAddressRefused';
  }
}

/** An IPv4-mapped IPv6 address (`::ffff:169.254.169.254`) is judged as the IPv4 address it carries. */
function unmapped(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped ? mapped[1]! : address;
}

export function isForbiddenAddress(address: string): boolean {
  const plain = unmapped(address.replace(/^\[|\]$/g, '').replace(/%.*$/, ''));
  const family = isIP(plain);
  if (family === 0) return false;
  return FORBIDDEN.check(plain, family === 4 ? 'ipv4' : 'ipv6');
}

export function isForbiddenHost(hostname: string): boolean {
  const host = hostname
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '');
  return METADATA_HOSTS.has(host) || isForbiddenAddress(host);
}

/** Throws OutboundAddressRefused for a URL whose host is refused (unless allowed). */
export function checkOutboundUrl(url: URL, allowLinkLocal: boolean): void {
  if (!allowLinkLocal && isForbiddenHost(url.hostname)) throw new OutboundAddressRefused(url.hostname);
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/** A dns.lookup that refuses a name resolving to any forbidden address (it is checked when the socket opens). */
function guardedLookup(hostname: string, options: LookupOptions, callback: LookupCallback): void {
  if (isForbiddenHost(hostname)) {
    callback(new OutboundAddressRefused(hostname), '');
    return;
  }
  dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, '');
    const found = addresses;
    if (found.some(({ address }) => isForbiddenAddress(address)))
      return callback(new OutboundAddressRefused(hostname), '');
    if (options.all) return callback(null, found);
    const first = found[0];
    if (!first)
      return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '');
    callback(null, first.address, first.family);
  });
}

/** The connection pool outbound MCP calls use: with the guarded lookup unless link-local is allowed. */
export function outboundAgent(allowLinkLocal: boolean): Agent {
  const { Agent: Pool } = undici();
  return allowLinkLocal ? new Pool() : new Pool({ connect: { lookup: guardedLookup } });
}

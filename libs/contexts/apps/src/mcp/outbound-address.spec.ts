import { checkOutboundUrl, isForbiddenAddress, isForbiddenHost } from './outbound-address.js';

describe('the outbound guard of MCP calls', () => {
  it.each([
    '169.254.169.254',
    '169.254.0.1',
    'fe80::1',
    'FE80::abcd%eth0',
    'fd00:ec2::254',
    '100.100.100.200',
    '::ffff:169.254.169.254',
  ])('refuses the link-local or metadata address %s', (address) => {
    expect(isForbiddenAddress(address)).toBe(true);
  });

  it.each(['127.0.0.1', '10.0.0.1', '::1', '8.8.8.8', '169.255.0.1', 'fe00::1'])('allows %s', (address) => {
    expect(isForbiddenAddress(address)).toBe(false);
  });

  it('refuses the metadata host names, however spelled', () => {
    for (const host of ['metadata.google.internal', 'METADATA.google.internal.', 'metadata', 'instance-data'])
      expect(isForbiddenHost(host)).toBe(true);
    expect(isForbiddenHost('mcp.example.com')).toBe(false);
  });

  it('lets configuration allow them', () => {
    const url = new URL('http://169.254.169.254/latest');
    expect(() => checkOutboundUrl(url, false)).toThrow(/link-local or cloud-metadata/);
    expect(() => checkOutboundUrl(url, true)).not.toThrow();
  });
});

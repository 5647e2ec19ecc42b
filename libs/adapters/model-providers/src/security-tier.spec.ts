import { inferSecurityTier, resolveSecurityTier } from './security-tier.js';

describe('security tier', () => {
  const hosting = 'eu-central-1';
  it.each([
    ['eu-central-1', 'secure'],
    ['EU-Central-1 ', 'secure'],
    ['eu-west-1', 'eu-hosted'],
    ['eu-north-1', 'eu-hosted'],
    ['westeurope', 'eu-hosted'],
    ['germanywestcentral', 'eu-hosted'],
    ['europe-west4', 'eu-hosted'],
    ['europe-central2', 'eu-hosted'],
    ['eu-west-2', 'us-cloud'], // London: Europe, not the EU
    ['eu-central-2', 'us-cloud'], // Zurich
    ['uksouth', 'us-cloud'],
    ['switzerlandnorth', 'us-cloud'],
    ['us-east-1', 'us-cloud'],
    ['eastus', 'us-cloud'],
    ['asia-northeast1', 'us-cloud'],
    ['somewhere nice', 'us-cloud'],
    ['', 'us-cloud'],
  ])('region %p → %p', (region, tier) => {
    expect(inferSecurityTier(region, hosting)).toBe(tier);
  });

  it('treats the hosting region as secure whatever it is', () => {
    expect(inferSecurityTier('westeurope', 'westeurope')).toBe('secure');
    expect(inferSecurityTier('eu-central-1', 'westeurope')).toBe('eu-hosted');
    expect(inferSecurityTier(undefined, hosting)).toBe('us-cloud');
  });

  it('lets an explicit tier win over the region', () => {
    expect(resolveSecurityTier('secure', 'us-east-1', hosting)).toBe('secure');
    expect(resolveSecurityTier('us-cloud', 'eu-central-1', hosting)).toBe('us-cloud');
    expect(resolveSecurityTier(undefined, 'eu-west-1', hosting)).toBe('eu-hosted');
  });
});

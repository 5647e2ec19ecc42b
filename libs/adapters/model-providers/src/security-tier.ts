// The security tier rule (spec: "Model description"): an explicit tier from configuration wins; otherwise the region
// decides — the instance's own hosting region is `secure`, any other region in the EU is `eu-hosted`, and anything
// else, or anything unclassifiable, is `us-cloud`. Tags and the free-form location label are never consulted.
import type { SecurityTier } from './model.js';

/** Cloud regions located in EU member states (AWS, Azure, Google Cloud). Regions elsewhere in Europe are not EU. */
const EU_REGIONS = new Set([
  // AWS
  'eu-central-1', // Frankfurt
  'eu-west-1', // Ireland
  'eu-west-3', // Paris
  'eu-south-1', // Milan
  'eu-south-2', // Spain
  'eu-north-1', // Stockholm
  // Azure
  'westeurope', // Netherlands
  'northeurope', // Ireland
  'germanywestcentral',
  'germanynorth',
  'francecentral',
  'francesouth',
  'swedencentral',
  'swedensouth',
  'italynorth',
  'polandcentral',
  'spaincentral',
  'austriaeast',
  'belgiumcentral',
  'denmarkeast',
  // Google Cloud
  'europe-west1', // Belgium
  'europe-west3', // Frankfurt
  'europe-west4', // Netherlands
  'europe-west8', // Milan
  'europe-west9', // Paris
  'europe-west10', // Berlin
  'europe-west12', // Turin
  'europe-southwest1', // Madrid
  'europe-north1', // Finland
  'europe-north2', // Stockholm
  'europe-central2', // Warsaw
]);

const normalise = (region: string): string => region.trim().toLowerCase();

export function inferSecurityTier(region: string | undefined, hostingRegion: string): SecurityTier {
  if (!region || normalise(region).length === 0) return 'us-cloud';
  const value = normalise(region);
  if (value === normalise(hostingRegion)) return 'secure';
  return EU_REGIONS.has(value) ? 'eu-hosted' : 'us-cloud';
}

export function resolveSecurityTier(
  explicit: SecurityTier | undefined,
  region: string | undefined,
  hostingRegion: string,
): SecurityTier {
  return explicit ?? inferSecurityTier(region, hostingRegion);
}

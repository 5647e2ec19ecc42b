// A configured model as the API answers it (GET /models, GET /llm/{agentId}/models), and the label of its security
// tier: what the Agent's model choice and the operations page show alike.
import type { Label } from '../i18n';

export interface ModelInfo {
  readonly key: string;
  readonly displayName: string;
  readonly kind: string;
  readonly provider: string;
  readonly securityTier: 'secure' | 'eu-hosted' | 'us-cloud';
  readonly locationLabel: string;
  readonly pricing: { readonly input: number; readonly output: number };
  readonly includedUsage: boolean;
}

export const TIERS: Readonly<Record<ModelInfo['securityTier'], Label>> = {
  secure: 'tierSecure',
  'eu-hosted': 'tierEu',
  'us-cloud': 'tierUs',
};

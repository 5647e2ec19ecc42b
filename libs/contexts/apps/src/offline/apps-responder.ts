// Apps' part of the offline chat model: an App's tools are never called of the model's own accord (it cannot know
// what they do), only when the person's message names one: `call <appId>__<tool> <JSON arguments>`.
import type { OfflineResponder } from '#model-providers';
import { isAppToolName } from '../mcp/app-tool-name.js';

export const appsOfflineResponder: OfflineResponder = {
  name: 'apps',
  ownsTool: isAppToolName,
};

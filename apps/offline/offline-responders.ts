// The offline chat model's responders, in the order it consults them (see `offline-responder.ts` in libs/models):
// the sources (conversations) first, then the memories, which add to what the sources said, then the Skill followed,
// which adds to both, then a code run's result, which answers whatever else the turn holds. The order of the
// built-in tools follows: `search_knowledge`, `load_skill`, `read_skill_file`, `run_code` (run_code claims a turn
// whose message holds code, whatever its place). Apps' tools come last and are called only when a message names one.
//
// Importing this module registers them, in every thread that imports it: the applications import it for their own
// thread, and the offline worker threads import it (by the URL registered here) before their first task. It imports
// the responder modules themselves, not the contexts' indexes, so a worker thread loads the prompt formats and no
// NestJS module.
import { useOfflineResponders, type OfflineResponder } from '#model-providers/offline-kit';
import { knowledgeOfflineResponder } from '#conversations/offline/knowledge-responder';
import { memoryOfflineResponder } from '#memory/offline/memory-responder';
import { skillsOfflineResponder } from '#skills/offline/skills-responder';
import { codeOfflineResponder } from '#code-execution/offline/code-responder';
import { appsOfflineResponder } from '#apps/offline/apps-responder';

export const OFFLINE_RESPONDERS: readonly OfflineResponder[] = [
  knowledgeOfflineResponder,
  memoryOfflineResponder,
  skillsOfflineResponder,
  codeOfflineResponder,
  appsOfflineResponder,
];

useOfflineResponders(OFFLINE_RESPONDERS, import.meta.url);

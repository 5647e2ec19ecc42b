// `npm run docs`: writes the generated parts of the docs (the configuration page, the architecture's context graph).
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { ARCHITECTURE_DOC, CONFIGURATION_DOC, architectureDoc, configurationDoc } from './generated-docs.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

writeFileSync(join(root, CONFIGURATION_DOC), await configurationDoc());
writeFileSync(join(root, ARCHITECTURE_DOC), architectureDoc(root));
process.stdout.write(`wrote ${CONFIGURATION_DOC} and ${ARCHITECTURE_DOC}'s context graph\n`);

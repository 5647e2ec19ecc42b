// What an MCP server offered when the platform last read it: its name and version, each tool (its name, what it does,
// and whether the server marks it read-only or destructive) and how many resources and prompts it has.
import { t } from '../../i18n';
import type { McpOffer, McpTool } from './app-types';

/** MCP's hints, as the server sets them: a tool that changes nothing, or one that may destroy something. */
export function ToolMark({ tool }: { tool: Pick<McpTool, 'annotations'> }) {
  const hints = tool.annotations ?? {};
  if (hints.readOnlyHint === true) return <span class="tool-mark read-only">{t('appMcpReadOnly')}</span>;
  if (hints.destructiveHint === true)
    return <span class="tool-mark destructive">{t('appMcpDestructive')}</span>;
  return null;
}

export function McpOfferView({ appName, offer }: { appName: string; offer: McpOffer }) {
  return (
    <div class="mcp-offer">
      <p>
        {t('appMcpServer')} <strong>{offer.server.name}</strong>{' '}
        {t('appMcpVersion', { version: offer.server.version })}
      </p>
      <p class="note">
        {t('appMcpCounts', {
          resources: String(offer.resources.length),
          prompts: String(offer.prompts.length),
        })}
      </p>
      <details>
        <summary>{t('appMcpTools', { name: appName, n: String(offer.tools.length) })}</summary>
        <ul class="mcp-tools">
          {offer.tools.map((tool) => (
            <li key={tool.name}>
              <code>{tool.name}</code> <ToolMark tool={tool} />
              {tool.description && <p>{tool.description}</p>}
            </li>
          ))}
        </ul>
      </details>
    </div>
  );
}

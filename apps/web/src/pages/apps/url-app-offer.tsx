// What a URL App's `/meta` declares for Agents: each tool (its name, what it does, its read-only or destructive mark,
// where it is POSTed and the arguments its schema names, required ones first) and the documents it offers as Knowledge.
import { t } from '../../i18n';
import type { UrlAppMeta, UrlAppTool } from './app-types';
import { ToolMark } from './mcp-offer';

/** The argument names the schema declares, the required ones marked with `*`. */
function argumentNames(tool: UrlAppTool): string {
  const schema = tool.inputSchema ?? {};
  const properties = Object.keys((schema.properties as Record<string, unknown> | undefined) ?? {});
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  return [...properties]
    .sort((a, b) => Number(required.has(b)) - Number(required.has(a)))
    .map((name) => (required.has(name) ? `${name}*` : name))
    .join(', ');
}

export function UrlAppOffer({ appName, meta }: { appName: string; meta: UrlAppMeta }) {
  const documents = meta.documents ?? [];
  if (meta.tools.length === 0 && documents.length === 0) return null;
  return (
    <div class="mcp-offer">
      {meta.tools.length > 0 && (
        <details>
          <summary>{t('appMcpTools', { name: appName, n: String(meta.tools.length) })}</summary>
          <ul class="mcp-tools">
            {meta.tools.map((tool) => {
              const names = argumentNames(tool);
              return (
                <li key={tool.name}>
                  <code>{tool.name}</code> <ToolMark tool={tool} />
                  {tool.description && <p>{tool.description}</p>}
                  <p class="note">
                    {t('appUrlToolCall', { path: tool.path ?? `/tools/${tool.name}` })} ·{' '}
                    {names ? t('appUrlToolArguments', { names }) : t('appUrlToolNoArguments')}
                  </p>
                </li>
              );
            })}
          </ul>
        </details>
      )}
      {documents.length > 0 && (
        <details>
          <summary>{t('appUrlDocuments', { name: appName, n: String(documents.length) })}</summary>
          <ul class="mcp-tools">
            {documents.map((document) => (
              <li key={document.uri}>
                {document.name} <code>{document.uri}</code>
              </li>
            ))}
          </ul>
        </details>
      )}
    </div>
  );
}

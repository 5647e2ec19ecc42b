// An uploaded Skill file: a SKILL.md alone (`.md`), or a zip bundle (`.zip`, or any bytes opening like a zip).
import { ValidationError } from '#kernel';
import { decodeSkillMarkdown, parseSkillMarkdown, quoted } from './skill-manifest.js';
import { readSkillZip, type SkillBundle, type ZipLimits } from './skill-zip.js';

const PARAM = 'file';

/** `PK\x03\x04` (a local file header) or `PK\x05\x06` (the end record of an empty zip). */
function looksLikeZip(bytes: Uint8Array): boolean {
  return (
    bytes[0] === 0x50 &&
    bytes[1] === 0x4b &&
    ((bytes[2] === 3 && bytes[3] === 4) || (bytes[2] === 5 && bytes[3] === 6))
  );
}

/**
 * Reads an uploaded Skill: a zip (by its bytes or its `.zip` name) through readSkillZip, a `.md` file as a
 * SKILL.md with no reference files; anything else is 400 `unsupported_skill_file`. Errors have `param: 'file'`.
 */
export async function readSkillUpload(
  fileName: string,
  bytes: Uint8Array,
  limits?: Partial<ZipLimits>,
): Promise<SkillBundle> {
  const extension = /\.([^./\\]+)$/.exec(fileName.trim())?.[1]?.toLowerCase();
  if (looksLikeZip(bytes) || extension === 'zip') return readSkillZip(bytes, limits);
  if (extension === 'md' || extension === 'markdown')
    return { manifest: parseSkillMarkdown(decodeSkillMarkdown(bytes, PARAM), PARAM), files: [] };
  throw new ValidationError(
    'unsupported_skill_file',
    `${quoted(fileName)} is not a Skill file: upload a SKILL.md (.md) or a zip (.zip) holding one`,
    PARAM,
  );
}

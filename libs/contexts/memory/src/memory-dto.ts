// A memory as every route answers it.
import type { z } from 'zod';
import type { MemoryDto } from './memory.schemas.js';
import type { PlainMemory } from './memory.reader.js';

export const toMemoryDto = (memory: PlainMemory): z.output<typeof MemoryDto> => ({
  id: memory.id,
  agentId: memory.agentId,
  bucket: memory.bucket,
  text: memory.text,
  version: memory.version,
  lastUsedAt: memory.lastUsedAt,
  createdAt: memory.createdAt,
  updatedAt: memory.updatedAt,
});

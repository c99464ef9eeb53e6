// Variant 2's answers (generate, the AG-UI stream, Mastra's agent): the seed's `searchDocs` tool, and a Sources
// footer of file names, which the contract makes Variant 2's citation labels.
import type { AnswerFormat } from '../../agent/agent-service.js';

export const variant2AnswerFormat: AnswerFormat = {
  retrievalToolName: 'searchDocs',
  sourceLabel: (snippet) => snippet.file,
  requiresMention: false,
};

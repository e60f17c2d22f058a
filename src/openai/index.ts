// The Responses API and OpenAI Agents SDK surface: `import { applyResponseItems, createEditor }
// from 'patchtx/openai'`. The diffs follow the Agents SDK's final-newline rules by default
// (docs/openai.md); `patchtx apply` and `apply_patch` keep Codex's.
export { applyResponseItems } from './items.js';
export type { ApplyPatchCallItem, ApplyPatchCallOutputItem, ApplyResponseItemsOptions } from './items.js';
export { createEditor } from './editor.js';
export type { CreateEditorOptions, EditorResult, PatchtxEditor, ToolEventSource } from './editor.js';
export type { ApplyPatchOperation } from './operation.js';
export type { SurfaceOptions } from './options.js';

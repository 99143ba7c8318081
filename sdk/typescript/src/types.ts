/**
 * Names for the schemas of the server's `/openapi.json` (generated into
 * `schema.ts` by `npm run generate`; a test regenerates it from a live
 * server and fails when it differs).
 */

import type { components } from "./schema.js";

/** Every schema of the OpenAPI document, by name. */
export type Schemas = components["schemas"];

export type RememberInput = Schemas["RememberInput"];
export type RememberOutput = Schemas["RememberOutput"];
export type ListInput = Schemas["ListInput"];
export type ListOutput = Schemas["ListOutput"];
export type MemoryView = Schemas["MemoryView"];
export type ForgetInput = Schemas["ForgetInput"];
export type ForgetOutput = Schemas["ForgetOutput"];
export type TagInput = Schemas["TagInput"];
export type TagOutput = Schemas["TagOutput"];
export type UpdateInput = Schemas["UpdateInput"];
export type UpdateOutput = Schemas["UpdateOutput"];
export type HistoryOutput = Schemas["HistoryOutput"];
export type ChainOutput = Schemas["ChainOutput"];
export type SimilarInput = Schemas["SimilarInput"];
export type SimilarOutput = Schemas["SimilarOutput"];
export type ActivityInput = Schemas["ActivityInput"];
export type ActivityOutput = Schemas["ActivityOutput"];
export type RevertOutput = Schemas["RevertOutput"];
export type IngestInput = Schemas["IngestInput"];
export type IngestOutput = Schemas["IngestOutput"];
export type RecallInput = Schemas["RecallInput"];
export type RecallOutput = Schemas["RecallOutput"];
export type ContextInput = Schemas["ContextInput"];
export type ContextPack = Schemas["ContextPack"];
export type PromptInput = Schemas["PromptInput"];
export type Window = Schemas["Window"];
export type StatsOutput = Schemas["StatsOutput"];
export type ImportInput = Schemas["ImportInput"];
export type ImportReport = Schemas["ImportReport"];
export type ExportInput = Schemas["ExportInput"];
export type ConversationView = Schemas["ConversationView"];
export type TranscriptInput = Schemas["TranscriptInput"];
export type ConversationImportReport = Schemas["ConversationImportReport"];
export type ConversationTree = Schemas["ConversationTree"];
export type ConversationStats = Schemas["ConversationStats"];
export type LogInput = Schemas["LogInput"];
export type LogOutput = Schemas["LogOutput"];
export type WindowInput = Schemas["WindowInput"];
export type SlotListInput = Schemas["SlotListInput"];
export type SlotView = Schemas["SlotView"];
export type SlotInput = Schemas["SlotInput"];
export type SlotSearchInput = Schemas["SlotSearchInput"];
export type ReadInput = Schemas["ReadInput"];
export type SlotRead = Schemas["SlotRead"];
export type EntryInput = Schemas["EntryInput"];
export type SaveOutput = Schemas["SaveOutput"];
export type ArchiveInput = Schemas["ArchiveInput"];
export type ConsolidateInput = Schemas["ConsolidateInput"];
export type ConsolidateOutput = Schemas["ConsolidateOutput"];
export type ProvidersOutput = Schemas["ProvidersOutput"];
export type CreateKeyInput = Schemas["CreateKeyInput"];
export type CreatedKey = Schemas["CreatedKey"];
export type KeyView = Schemas["KeyView"];
export type ZeroOutput = Schemas["ZeroOutput"];
export type SettingsInput = Schemas["SettingsInput"];
export type SettingsView = Schemas["SettingsView"];

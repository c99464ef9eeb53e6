// Registered sources: what keeps a namespace current on its own (schedules, conditional refreshes, webhooks).
export { SourcesService, sourceId, type SourceChanges, type SourcesServiceOptions } from './sources-service.js';

// Insights: what people ask and how well the docs answer it. The question log's recorder (with feedback on answers)
// and the gaps report built from it.
export { durationHelp, parseDuration } from './duration.js';
export { QuestionRecorder, type QuestionLogMode } from './question-recorder.js';
export type { GapsReport } from './gaps-report.js';
export { InsightsService } from './insights-service.js';
export { gapsReportCsv } from './report-csv.js';

import type { SuccessShape } from '../src/http/handler-types.js';

export const generateDailyReport: SuccessShape<'generateDailyReport'> = (report) => ({
  headers: { Location: `/v1/reports/daily/${report.date}` },
});

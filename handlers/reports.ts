import type { SuccessShape } from './types.js';

export const generateDailyReport: SuccessShape<'generateDailyReport'> = (report) => ({
  headers: { Location: `/v1/reports/daily/${report.date}` },
});

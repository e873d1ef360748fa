import type { Handler } from './types.js';

export const listDailyReports: Handler<'listDailyReports'> = async ({ actor, query, services }) => ({ status: 200, body: await services.reports.list(actor, query) });

export const generateDailyReport: Handler<'generateDailyReport'> = async ({ actor, body, services }) => {
  const report = await services.reports.generate(actor, body.date);
  return { status: 201, body: report, headers: { Location: `/v1/reports/daily/${report.date}` } };
};

export const getDailyReport: Handler<'getDailyReport'> = async ({ actor, path, services }) => ({ status: 200, body: await services.reports.get(actor, path.date) });

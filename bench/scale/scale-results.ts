/**
 * Reading the results of the benchmarks bench:scale runs: their BENCH_RESULT_FILE where they write one, else the
 * Markdown tables they print. Pure, so that it can be checked apart from the runs.
 */

/** A Markdown table of a step's output: its header cells and its rows' cells. */
interface ParsedTable {
  header: string[];
  rows: string[][];
}

/** Every Markdown table in `text` (consecutive lines starting with `|`), its separator line left out. */
export function markdownTables(text: string): ParsedTable[] {
  const tables: ParsedTable[] = [];
  let lines: string[][] = [];
  const flush = () => {
    if (lines.length >= 2) {
      tables.push({
        header: lines[0]!,
        rows: lines.slice(1).filter((cells) => !cells.every((c) => /^:?-+:?$/.test(c))),
      });
    }
    lines = [];
  };
  for (const line of text.split('\n')) {
    const trimmed = line.trim();
    if (trimmed.startsWith('|') && trimmed.endsWith('|')) {
      lines.push(
        trimmed
          .slice(1, -1)
          .split('|')
          .map((cell) => cell.trim()),
      );
    } else flush();
  }
  flush();
  return tables;
}

/** The first number in a cell ("1,234.5 (sampled 100)" → 1234.5); NaN when there is none. */
export function numberIn(cell: string | undefined): number {
  const match = /-?\d[\d,]*(\.\d+)?/.exec(cell ?? '');
  return match ? Number(match[0].replace(/,/g, '')) : NaN;
}

/** One query of the statistics benchmark. */
export interface StatisticsQuery {
  label: string;
  p50: number;
  p99: number;
}

/**
 * The unfiltered query and the one with the highest service p99, from the statistics benchmark: its
 * BENCH_RESULT_FILE (`{ results: [{ label, service: { p50, p99 } }] }`, latencies in ms) when it wrote one, else its
 * table (the first with p50 and p99 columns: the first of each are the service's, the naive baseline's come after).
 */
export function statisticsSummary(
  stdout: string,
  resultFile: unknown,
): { unfiltered: StatisticsQuery; worst: StatisticsQuery } {
  let queries: StatisticsQuery[] | undefined;
  const fromFile = (resultFile as { results?: { label: string; service: { p50: number; p99: number } }[] } | undefined)
    ?.results;
  if (Array.isArray(fromFile) && fromFile.length > 0) {
    queries = fromFile.map(({ label, service }) => ({ label, p50: service.p50, p99: service.p99 }));
  }
  if (queries === undefined) {
    const found = markdownTables(stdout).find(
      (candidate) =>
        candidate.header.some((cell) => /p50/i.test(cell)) && candidate.header.some((cell) => /p99/i.test(cell)),
    );
    if (found === undefined) throw new Error('the statistics benchmark printed no table with p50 and p99 columns');
    const p50 = found.header.findIndex((cell) => /p50/i.test(cell));
    const p99 = found.header.findIndex((cell) => /p99/i.test(cell));
    queries = found.rows.map((cells) => ({ label: cells[0]!, p50: numberIn(cells[p50]), p99: numberIn(cells[p99]) }));
  }
  const unfiltered = queries.find((query) => /^unfiltered/i.test(query.label));
  if (unfiltered === undefined) throw new Error('the statistics benchmark reported no "unfiltered" query');
  const worst = queries.reduce((a, b) => (b.p99 > a.p99 ? b : a));
  return { unfiltered, worst };
}

/** One export of the export benchmark. */
export interface ExportRow {
  rows: number;
  format: string;
  seconds: number;
  rowsPerSecond: number;
  workerPeakMb: number;
  queryPeakMb: number;
}

/**
 * The exports from the export benchmark's table: the first with `format` and `seconds` columns; the row count is the
 * leading number of the first cell ("1,000,000 rows (full export)"), peak RSS the leading number of the columns
 * naming export-worker and location-query.
 */
export function exportRows(stdout: string): ExportRow[] {
  const found = markdownTables(stdout).find(
    (candidate) => candidate.header.includes('format') && candidate.header.some((cell) => /^seconds/.test(cell)),
  );
  if (found === undefined) throw new Error('the export benchmark printed no table with format and seconds columns');
  const column = (pattern: RegExp) => {
    const index = found.header.findIndex((cell) => pattern.test(cell));
    if (index < 0) throw new Error(`the export table has no column matching ${String(pattern)}`);
    return index;
  };
  const columns = {
    format: column(/^format$/),
    seconds: column(/^seconds/),
    rate: column(/^rows\/s/),
    worker: column(/export-worker.*RSS/i),
    query: column(/location-query.*RSS/i),
  };
  return found.rows.map((cells) => ({
    rows: numberIn(cells[0]),
    format: cells[columns.format]!,
    seconds: numberIn(cells[columns.seconds]),
    rowsPerSecond: numberIn(cells[columns.rate]),
    workerPeakMb: numberIn(cells[columns.worker]),
    queryPeakMb: numberIn(cells[columns.query]),
  }));
}

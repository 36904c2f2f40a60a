import { readFileSync, writeFileSync } from "node:fs";
import type { Reporter, TestModule, TestSuite } from "vitest/node";
import { DELIBERATE, NOT_EXPRESSIBLE, SUITE_PREFIX } from "./ledger";

/**
 * Prints, after a run, one row per conformance suite (see ./ledger.ts): cases that agree with the
 * source out of those the public API can express, deliberate differences, and what is not
 * expressible and why. With CONFORMANCE_README=1 (`npm run conformance`) it also rewrites the
 * README's table between its markers, so the table is produced by the tests, never typed; with
 * CONFORMANCE_README=check (CI) a README table that differs from this run's fails the run.
 */
interface Row {
  source: string;
  agree: number;
  failed: number;
  deliberate: number;
  notExpressible: Map<string, number>;
}

const START = "<!-- conformance:start -->";
const END = "<!-- conformance:end -->";
const MARK = /\s⟨(.+)⟩$/;

function rowOf(suite: TestSuite): Row {
  const row: Row = {
    source: suite.name.slice(SUITE_PREFIX.length),
    agree: 0,
    failed: 0,
    deliberate: 0,
    notExpressible: new Map(),
  };
  for (const test of suite.children.allTests()) {
    const mark = MARK.exec(test.name)?.[1] ?? "";
    const state = test.result().state;
    if (mark.startsWith(NOT_EXPRESSIBLE)) {
      const reason = mark.slice(NOT_EXPRESSIBLE.length);
      row.notExpressible.set(reason, (row.notExpressible.get(reason) ?? 0) + 1);
    } else if (state === "failed") row.failed++;
    else if (state !== "passed")
      continue; // filtered out of this run
    else if (mark.startsWith(DELIBERATE)) row.deliberate++;
    else row.agree++;
  }
  return row;
}

/** Expressible cases either agree with PostHog, follow a documented difference, or disagree (a failure). */
function tableOf(rows: Row[]): string {
  const lines = [
    "| Source | Expressible cases | Agree | Documented difference | Disagree | Not expressible |",
    "| --- | --- | --- | --- | --- | --- |",
  ];
  for (const r of rows) {
    const reasons = [...r.notExpressible].map(([reason, n]) => `${n}: ${reason}`).join("; ") || "none";
    lines.push(
      `| ${r.source} | ${r.agree + r.deliberate + r.failed} | ${r.agree} | ${r.deliberate} | ${r.failed} | ${reasons} |`,
    );
  }
  return lines.join("\n");
}

function readmeParts() {
  const readme = readFileSync("README.md", "utf8");
  const start = readme.indexOf(START);
  const end = readme.indexOf(END);
  if (start < 0 || end < start) throw new Error(`README.md lacks the ${START} … ${END} markers`);
  return {
    before: readme.slice(0, start + START.length),
    table: readme.slice(start + START.length, end).trim(),
    after: readme.slice(end),
  };
}

function rewriteReadme(table: string) {
  const { before, after } = readmeParts();
  writeFileSync("README.md", `${before}\n${table}\n${after}`);
}

export default class ConformanceReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>) {
    const rows = modules
      .flatMap((m) => [...m.children.allSuites()])
      .filter((s) => s.name.startsWith(SUITE_PREFIX))
      .map(rowOf)
      .sort((a, b) => a.source.localeCompare(b.source));
    if (!rows.length) return;
    const table = tableOf(rows);
    console.log(`\nConformance with PostHog's published expectations:\n${table}\n`);
    const mode = process.env.CONFORMANCE_README;
    if (mode === "1" && rows.every((r) => r.failed === 0)) rewriteReadme(table);
    // CI runs every suite in full: the README must show what this run produced.
    if (mode === "check" && readmeParts().table !== table) {
      console.error("README.md's conformance table differs from what the suites produced: run `npm run conformance`.");
      process.exitCode = 1;
    }
  }
}

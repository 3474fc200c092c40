// A client of the mailauth API typed by openapi-typescript from
// internal/report/openapi.json (generated/api.ts). It is never run, only
// type-checked (tsc --noEmit --strict, TestTypeScriptClient): it compiles
// only while the document lets a client narrow a check's diagnostics by
// the check's id, and each @ts-expect-error line compiles only while the
// reading below it is an error.
import type { components } from "./generated/api";

type ScanSummary = components["schemas"]["ScanSummary"];
type CheckSummary = components["schemas"]["CheckSummary"];
type PtrCheckSummary = components["schemas"]["PtrCheckSummary"];

// dmarcTreeWalkQueries finds the dmarc check of a scan and reads a field
// only DmarcDiagnostics has: testing id narrows the item to DmarcCheck.
export function dmarcTreeWalkQueries(scan: ScanSummary): number | undefined {
  for (const check of scan.checks) {
    if (check.id === "dmarc") {
      return check.diagnostics?.treeWalkQueries;
    }
  }
  return undefined;
}

// diagnosticsLine reads one field of each check's own diagnostics; every
// case narrows the item to that check's object.
export function diagnosticsLine(check: CheckSummary): string {
  switch (check.id) {
    case "spf":
      return `SPF lookups: ${check.diagnostics?.dnsLookupCount} of ${check.diagnostics?.dnsLookupLimit}`;
    case "dkim":
      return `DKIM key: ${check.diagnostics?.keyType}`;
    case "mta-sts":
      return `MTA-STS policy: ${check.diagnostics?.policyFetchState}`;
    case "tls-rpt":
      return `TLS-RPT destinations: ${check.diagnostics?.destinationCount}`;
    case "ptr":
      return `forward confirmed: ${check.diagnostics?.forwardConfirmed}`;
    case "mx":
    case "caa":
      // @ts-expect-error: mx and caa carry no diagnostics at all.
      return String(check.diagnostics);
  }
  return check.title.en;
}

// forwardConfirmed needs no test of id: a PtrCheckSummary's check is the
// ptr check.
export function forwardConfirmed(res: PtrCheckSummary): boolean | null | undefined {
  return res.check.diagnostics?.forwardConfirmed;
}

// wrongCheck reads the dmarc field on the spf check: an error.
export function wrongCheck(check: CheckSummary): unknown {
  if (check.id === "spf") {
    // @ts-expect-error: treeWalkQueries is DmarcDiagnostics', not SpfDiagnostics'.
    return check.diagnostics?.treeWalkQueries;
  }
  return undefined;
}

// notNarrowed reads a dmarc field without testing id: an error, since the
// item may be any check's.
export function notNarrowed(check: CheckSummary): unknown {
  if ("diagnostics" in check) {
    // @ts-expect-error: without a test of id the diagnostics are any check's.
    return check.diagnostics?.treeWalkQueries;
  }
  return undefined;
}

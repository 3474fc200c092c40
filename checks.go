package mailauth

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/mailauth/mailauth/caa"
	"github.com/mailauth/mailauth/dane"
	"github.com/mailauth/mailauth/dkim"
	"github.com/mailauth/mailauth/dmarc"
	"github.com/mailauth/mailauth/internal/gostack"
	"github.com/mailauth/mailauth/mtasts"
	"github.com/mailauth/mailauth/mx"
	"github.com/mailauth/mailauth/ptr"
	"github.com/mailauth/mailauth/resolver"
	"github.com/mailauth/mailauth/spf"
	"github.com/mailauth/mailauth/tlsrpt"
)

// checkSpec describes one check once: everything else (the order of a
// ScanSummary, the score weights, the DNS budget shares, the titles, the
// fallback diagnostics and the rules on the developer page) derives from
// checkTable.
type checkSpec struct {
	id    CheckID
	title text
	// weight is the check's share of the score; the weights sum to 100
	// (doc/scoring.md). 0 is a check that is reported but not scored.
	weight int
	// budget bounds the distinct DNS questions of the check, from its
	// package's own limits, so that no check can spend what its siblings
	// need. 0 means the check gets what the others leave (SPF only).
	budget int
	// check runs the check's package over dns (the check's share of the
	// scan's budget) and judges its facts.
	check func(r *run, ctx context.Context, dns resolver.Resolver) verdict
	// begin, when set, is check without a goroutine: it starts the
	// check's lookups over dns (resolver.Start) and, once they are in,
	// hands on judge, the work that turns them into the verdict (run
	// where a panic is contained, see checkFuncs); waits says that judge
	// may wait (on another check's facts), so it runs on a goroutine of
	// its own.
	begin func(r *run, ctx context.Context, dns resolver.Resolver, done func(judge func() verdict, waits bool))
	// first, when set, calls ask with the questions check asks before
	// anything else, and those it begins beside them (see firstFunc):
	// the scan begins them all and starts check's goroutine once the
	// first are answered (beginFirst), so that a check waiting for its
	// first answers holds no goroutine. check then asks them again and
	// gets the scan's answers (resolver.Scan). A question check would
	// not ask would cost the scan's budget, not the check's:
	// TestFirstQuestionsAreTheChecks compares the questions sent.
	first firstFunc
	// unknown returns the check's diagnostics with every fact unknown, for
	// a check that did not finish; nil where the contract has none.
	unknown func(r *run) Diagnostics
	// rules lists the check's judgement table: its named verdicts and the
	// values of its finding table, for the developer page.
	rules func() []rule
	// codes is the check's finding table: every code its protocol package
	// reports (the package's Codes()) and what the judge makes of each
	// (TestEveryCodeJudged, TestEveryFindingExplained).
	codes findingTable
}

// findingTable is one protocol package's finding codes, as strings, with
// the judgement rule, the note or the ignored-because reason the judge
// gives each.
type findingTable struct {
	codes   []string
	rules   map[string]rule
	notes   map[string]text
	ignored map[string]string
}

// codeColumn builds a check's findingTable from its protocol package's
// Codes() and the judge's tables (nil where the judge has none).
func codeColumn[C ~string](codes []C, rules map[C]rule, notes map[C]text, ignored map[C]string) findingTable {
	return findingTable{codes: stringsOf(codes), rules: keyedByString(rules), notes: keyedByString(notes), ignored: keyedByString(ignored)}
}

func stringsOf[C ~string](codes []C) []string {
	out := make([]string, len(codes))
	for i, c := range codes {
		out[i] = string(c)
	}
	return out
}

func keyedByString[C ~string, V any](m map[C]V) map[string]V {
	out := make(map[string]V, len(m))
	for c, v := range m {
		out[string(c)] = v
	}
	return out
}

// checkTable lists the checks in the order a ScanSummary lists them
// (doc/scoring.md).
//
// To add a check (TestNinthCheck, run with -tags ninthcheck, performs
// exactly these steps on a copy of the module, for a BIMI-like check
// with a weight, and runs every suite that knows the checks):
//
//  1. Write its protocol package (Select, Parse, Check, Result, Codes;
//     see doc/design.md).
//  2. The contract: add its CheckID constant (and, when the contract
//     gives it diagnostics, the Diagnostics type and its NewDiagnostics
//     case) in internal/report/report.go. In
//     internal/report/openapi.json, add its item schema, named from the
//     id ("mta-sts" → MtaStsCheck): a copy of another check's, its id
//     the const of the new id, its diagnostics the new diagnostics
//     schema (also in goTypes of internal/report/contract_test.go) or
//     none; add it to CheckSummary's oneOf and discriminator mapping
//     (TestCheckItemsDiscriminated names what is missing), and raise the
//     bounds that are the number of checks (ScanSummary.checks
//     min/maxItems, the StatusCounts maxima). Run go generate ./...
//     (contract.go).
//  3. Write judge_<id>.go: the finding table (each rule with its finding
//     id, <id>.kebab-case-name), the check method and the pure judge
//     function; add the finding ids to testdata/finding-ids.txt.
//  4. Add one row here, its codes column from its package's Codes() and
//     the judge's tables (TestEveryCodeJudged). Take its weight from the
//     other rows so the weights still sum to 100 (0 reports the check
//     without scoring it). The hand-derived scores that include a row
//     whose weight moved move with it: for CAA's, the "typical" row of
//     TestScore (score_test.go), the worked example on the developer
//     page (httpapi/web/developers/api.html, TestDeveloperScoreExample)
//     and the comments of TestScanIncomplete (scanner_test.go).
//  5. Give TestEveryFindingExplained the sparsest facts of each of its
//     findings (findingExplainers in explain_test.go).
//  6. Give good.example.com in testdata/zones/scan.zone the records that
//     pass it: the lab's good domain passes every check (the Examples,
//     the end-to-end scans, the examples' test). The summaries that
//     TestScanIncomplete (scanner_test.go) expects count that domain's
//     evaluated checks: one more.
//  7. Write its help page in httpapi/helptext.go: what it looks at, a good
//     record, and the fix of each finding, keyed by finding id
//     (TestHelpCoversRules names any missing).
//  8. Add a migration creating its analytics column to
//     analytics/migrate.go (analytics/rows.go's statusColumn names it).
//  9. Regenerate the goldens and the developer samples (go test . ./httpapi
//     -run 'Golden|Scan' -update) and the Example outputs that print
//     every check (example_test.go).
//  10. Add it to the hand-written lists of the checks in README.md, doc/
//     and the static pages; TestProseListsTheChecks names each one
//     (proseLists in prose_test.go).
//
// Nothing else lists or counts the checks: the order, weights, budgets,
// titles, analytics columns, the developer pages' tables, the CLI's usage
// and the web page's cards derive from this table.
var checkTable = []checkSpec{
	{
		id: CheckMX, title: msg("收件服务器（MX）", "Mail servers (MX)"), weight: 15,
		budget: 1 + 2 + 2*mx.MaxExchanges + dane.MaxHosts, // MX; A/AAAA of the domain (implicit MX) or of each exchange; their TLSA
		check:  (*run).checkMX, first: firstMX, unknown: noDiagnostics, rules: mxCheckRules,
		codes: codeColumn(mx.Codes(), mxRules, nil, mxIgnored),
	},
	{
		id: CheckSPF, title: msg("发件授权（SPF）", "Sender authorization (SPF)"), weight: 20,
		budget: 0, // the rest: see spfBudget
		check:  (*run).checkSPF, first: firstSPF, unknown: unknownSPF, rules: spfCheckRules,
		codes: codeColumn(spf.Codes(), spfRules, spfNotes, spfIgnored),
	},
	{
		id: CheckDMARC, title: msg("DMARC 策略", "DMARC policy"), weight: 25,
		budget: dmarc.MaxTreeWalk + 2 + dmarc.MaxExternalDestinations, // the walk (RFC 9989 §4.10); MX and TXT of the domain; RFC 9990 §3 authorizations
		check:  (*run).checkDMARC, first: firstDMARC, unknown: unknownDMARC, rules: dmarcCheckRules,
		codes: codeColumn(dmarc.Codes(), dmarcRules, dmarcNotes, dmarcIgnored),
	},
	{
		id: CheckDKIM, title: msg("DKIM 公钥", "DKIM public key"), weight: 10,
		budget: 1, // the selector's TXT
		check:  (*run).checkDKIM, begin: (*run).beginDKIM, unknown: unknownDKIM, rules: dkimCheckRules,
		codes: codeColumn(dkim.Codes(), dkimRules, nil, nil),
	},
	{
		id: CheckMTASTS, title: msg("强制 TLS 传输（MTA-STS）", "Enforced TLS delivery (MTA-STS)"), weight: 10,
		budget: 3, // _mta-sts TXT; A and AAAA of the policy host
		check:  (*run).checkMTASTS, first: firstMTASTS, unknown: unknownMTASTS, rules: mtastsCheckRules,
		codes: codeColumn(mtasts.Codes(), stsRules, stsNotes, nil),
	},
	{
		id: CheckTLSRPT, title: msg("TLS 报告（TLS-RPT）", "TLS reporting (TLS-RPT)"), weight: 5,
		budget: 1, // _smtp._tls TXT
		check:  (*run).checkTLSRPT, begin: (*run).beginTLSRPT, unknown: unknownTLSRPT, rules: tlsrptCheckRules,
		codes: codeColumn(tlsrpt.Codes(), rptRules, rptNotes, nil),
	},
	{
		id: CheckPTR, title: msg("反向解析（PTR）", "Reverse DNS (PTR)"), weight: 10,
		budget: 1 + ptr.MaxForward, // PTR; forward lookups
		check:  (*run).checkPTR, first: firstPTR, unknown: unknownPTR, rules: ptrCheckRules,
		codes: codeColumn(ptr.Codes(), ptrRules, nil, ptrIgnored),
	},
	{
		id: CheckCAA, title: msg("证书颁发机构授权（CAA）", "Certification Authority Authorization (CAA)"), weight: 5,
		budget: caa.MaxClimb + 1, // the climb (RFC 8659 §3); mta-sts.<domain>
		check:  (*run).checkCAA, first: firstCAA, unknown: noDiagnostics, rules: caaCheckRules,
		codes: codeColumn(caa.Codes(), caaRules, caaNotes, caaIgnored),
	},
}

// CheckOrder returns the checks in the fixed order of a ScanSummary.
func CheckOrder() []CheckID {
	out := make([]CheckID, len(checkTable))
	for i, c := range checkTable {
		out[i] = c.id
	}
	return out
}

// specOf returns the row of check id.
func specOf(id CheckID) (checkSpec, bool) {
	for _, c := range checkTable {
		if c.id == id {
			return c, true
		}
	}
	return checkSpec{}, false
}

// column derives one column of checkTable as a map, for the rows where
// keep holds.
func column[V any](get func(checkSpec) V, keep func(checkSpec) bool) map[CheckID]V {
	out := make(map[CheckID]V, len(checkTable))
	for _, c := range checkTable {
		if keep(c) {
			out[c.id] = get(c)
		}
	}
	return out
}

func every(checkSpec) bool { return true }

// titles of the checks.
var titles = column(func(c checkSpec) text { return c.title }, every)

// weights of the checks; they sum to 100.
var weights = column(func(c checkSpec) int { return c.weight }, every)

// checkBudgets are the fixed budget shares; SPF's is spfBudget.
var checkBudgets = column(func(c checkSpec) int { return c.budget }, func(c checkSpec) bool { return c.budget > 0 })

// checkFuncs binds the check functions of ids to r, each over its share
// of the scan's budget.
func (r *run) checkFuncs(ids ...CheckID) map[CheckID]checkFunc {
	out := make(map[CheckID]checkFunc, len(ids))
	r.logs = slices.Grow(r.logs, len(ids)) // faultLog appends one per check
	for _, id := range ids {
		c, ok := specOf(id)
		if !ok {
			continue
		}
		check := c.check // the closure keeps this field, not the whole row
		log := r.faultLog(id)
		if id == CheckMX {
			r.mxLog = log // mta-sts and tls-rpt judge the MX facts too
		}
		if c.begin != nil {
			out[id] = checkFunc{begin: r.beginFunc(id, c.begin, log)}
			continue
		}
		var first func(context.Context, func())
		if c.first != nil && !r.cfg.noFirst {
			ask := c.first
			first = func(ctx context.Context, then func()) { r.beginFirst(ctx, ask, log, then) }
		}
		out[id] = checkFunc{first: first, run: func(ctx context.Context) (v verdict) {
			if r.tooLong(id, &v) {
				return v // the record's name cannot exist: nothing to ask
			}
			// The goroutine's stack grows here, once, to the 8 KiB its
			// lookups reach, rather than under the first of them (a probe
			// under the bench's load: half the MX, TLS-RPT, PTR and CAA
			// checks grew under a lookup without it, none with it). The
			// SPF check still grows to 16 KiB, once, later, in about a
			// quarter of the bench's scans (its walk starts an mx term's
			// lookups below its own frames, where a goroutine of their
			// own waited for them before), the others in under 1 %
			// (BenchmarkScansInFlight's stack-moves/scan, -v per check; the MTA-STS
			// fetch's TLS handshake, 11 KB deep, has a goroutine of its
			// own); a 16 KiB reservation cost more stack
			// per scan in flight than it saved (BENCHMARKS.md, service CPU
			// / floor). It gives 8 KiB only while this goroutine holds
			// less than about 1 KiB of frames when it calls it (about 0.6
			// KiB now; in gostack's TestReserve a caller's 512 bytes give
			// 8 KiB and 1 KiB gives 16): a larger verdict or another
			// wrapper frame here would make every check's stack 16 KiB.
			gostack.Reserve8K()
			var at uintptr // where the stack is, for stackMoved
			if r.cfg.stackMoved != nil {
				at = gostack.Where()
			}
			start := time.Now()
			v = check(r, ctx, log)
			r.conclude(ctx, id, &v, log, start)
			if moved := r.cfg.stackMoved; moved != nil && gostack.Where() != at {
				moved(id)
			}
			return v
		}}
	}
	return out
}

// beginFunc is checkFuncs's checkFunc.begin for check id, whose spec's
// begin is begin: it starts the check over log (its share of the
// scan's budget) and hands on its verdict, judged and concluded, where
// the check's judge is handed on (on the goroutine that brought the
// last answer), or on a goroutine of its own when the judge or the
// conclusion may wait: on another check's facts, or on the control
// question that attributes an inconclusive answer (attributed). A panic
// in that work gives the internal-error fallback verdict.
func (r *run) beginFunc(id CheckID, begin func(*run, context.Context, resolver.Resolver, func(func() verdict, bool)), log *faultLog) func(context.Context, func(verdict)) {
	return func(ctx context.Context, done func(verdict)) {
		var v verdict
		if r.tooLong(id, &v) {
			done(v) // the record's name cannot exist: nothing to ask
			return
		}
		start := time.Now()
		begin(r, ctx, log, func(judge func() verdict, waits bool) {
			finish := func() {
				defer r.recoverInto(id, done)
				v := judge()
				if !waits && concludeWaits(v) {
					go func() {
						defer r.recoverInto(id, done)
						r.conclude(ctx, id, &v, log, start)
						done(v)
					}()
					return
				}
				r.conclude(ctx, id, &v, log, start)
				done(v)
			}
			if waits {
				go finish()
				return
			}
			finish()
		})
	}
}

// recoverInto is deferred where a begun check's work runs: a panic
// gives check id the internal-error fallback verdict (see panicked).
func (r *run) recoverInto(id CheckID, done func(verdict)) {
	if p := recover(); p != nil {
		r.panicked(id, done)
	}
}

// panicked reports a panic in check id to Config.OnPanic and hands done
// the internal-error fallback verdict.
func (r *run) panicked(id CheckID, done func(verdict)) {
	if r.cfg.OnPanic != nil {
		r.cfg.OnPanic(id)
	}
	done(r.fallback(id, UndeterminedInternal))
}

// concludeWaits reports whether concluding v may wait: attributing an
// undetermined or partial verdict may ask the control question
// (attributed, faultLog.attribute).
func concludeWaits(v verdict) bool {
	return v.determination == UndeterminedLookup || v.partial
}

// tooLong sets *v to tooLongVerdict's verdict for check id, if it has
// one, and reports whether it did. It and conclude are not inlined, so
// that their verdicts are not in the frame of the check's goroutine, under
// which its lookups wait.
//
//go:noinline
func (r *run) tooLong(id CheckID, v *verdict) bool {
	tl, ok := r.tooLongVerdict(id)
	if ok {
		*v = tl
	}
	return ok
}

// conclude turns *v, the verdict check id reached after starting at
// start, into the one it reports (attributed).
//
//go:noinline
func (r *run) conclude(ctx context.Context, id CheckID, v *verdict, log *faultLog, start time.Time) {
	*v = r.attributed(id, *v, log)
	if v.determination == UndeterminedLookup && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		// Undetermined by the scan's deadline, with no lookup of its own
		// to say so (it waited on another check's facts, whose lookup
		// the deadline cut at the same moment): slowness, not a finding.
		*v = slowVerdict(time.Since(start), *v)
	}
}

// The fallback diagnostics of each check: every fact unknown, the
// constants of the contract kept.

func noDiagnostics(*run) Diagnostics { return nil }

func unknownSPF(*run) Diagnostics { return &SPFDiagnostics{DNSLookupLimit: spfLookupLimit} }

func unknownDMARC(*run) Diagnostics { return &DMARCDiagnostics{TreeWalkQueries: 1} }

func unknownDKIM(r *run) Diagnostics {
	if r.sel == "" {
		return nil
	}
	return &DKIMDiagnostics{}
}

func unknownMTASTS(*run) Diagnostics { return &MTASTSDiagnostics{PolicyFetchState: FetchInconclusive} }

func unknownTLSRPT(*run) Diagnostics { return &TLSRPTDiagnostics{} }

func unknownPTR(r *run) Diagnostics {
	if !r.ip.IsValid() {
		return nil
	}
	return ptrBaseDiagnostics(r.ip)
}

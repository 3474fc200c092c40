package mailauth

import (
	"context"

	"github.com/mailauth/mailauth/dkim"
	"github.com/mailauth/mailauth/resolver"
)

// The DKIM judgement table (doc/scoring.md). An Ed25519 key passes;
// its details mention that many verifiers still need an RSA signature.
var (
	dkimPass  = rule{id: "dkim.pass", status: StatusPass, severity: SeverityInfo, say: msg("找到可用的 DKIM 公钥。", "A usable DKIM public key was found.")}
	dkimRules = map[dkim.Code]rule{
		dkim.CodeNoRecord:             {id: "dkim.no-record", status: StatusFail, severity: SeverityHigh, say: msg("该选择器下没有 DKIM 密钥记录，使用它的签名都无法验证。", "No DKIM key record exists for this selector, so signatures that use it cannot be verified.")},
		dkim.CodeDanglingCNAME:        {id: "dkim.dangling-cname", status: StatusFail, severity: SeverityHigh, say: msg("该选择器是一个别名（CNAME），但其指向的名称不存在，因此查不到密钥。", "The selector is an alias (CNAME) whose target does not exist, so no key can be found.")},
		dkim.CodeMultipleRecords:      {id: "dkim.multiple-records", status: StatusWarn, severity: SeverityMedium, say: msg("该选择器下有 %d 条 TXT 记录；验证方可能任取其一，结果不确定。", "The selector has %d TXT records; verifiers may pick any of them, so results are unpredictable.")},
		dkim.CodeNotDKIMRecord:        {id: "dkim.not-dkim-record", status: StatusFail, severity: SeverityHigh, say: msg("该选择器下的 TXT 记录不是 DKIM 密钥记录。", "The TXT record at the selector is not a DKIM key record.")},
		dkim.CodeInvalidVersion:       {id: "dkim.invalid-version", status: StatusFail, severity: SeverityHigh, say: msg("记录的版本标签不是 DKIM1，验证方会忽略它。", "The record's version tag is not DKIM1, so verifiers ignore it.")},
		dkim.CodeVersionNotFirst:      {id: "dkim.version-not-first", status: StatusFail, severity: SeverityHigh, say: msg("版本标签 v= 没有放在记录开头，验证方会忽略该记录。", "The version tag v= is not the first tag, so verifiers ignore the record.")},
		dkim.CodeDuplicateTag:         {id: "dkim.duplicate-tag", status: StatusFail, severity: SeverityHigh, say: msg("记录中有重复的标签，整条记录无效。", "A tag appears twice, which makes the whole record invalid.")},
		dkim.CodeKeyMissing:           {id: "dkim.key-missing", status: StatusFail, severity: SeverityHigh, say: msg("记录缺少必需的公钥标签 p=。", "The record lacks the required public-key tag p=.")},
		dkim.CodeKeyRevoked:           {id: "dkim.key-revoked", status: StatusFail, severity: SeverityMedium, say: msg("该选择器的密钥已被吊销（p= 为空），使用它的签名都会验证失败。", "The selector's key has been revoked (empty p=), so signatures that use it fail.")},
		dkim.CodeInvalidBase64:        {id: "dkim.invalid-base64", status: StatusFail, severity: SeverityHigh, say: msg("公钥不是有效的 Base64 编码。", "The public key is not valid Base64.")},
		dkim.CodeInvalidKey:           {id: "dkim.invalid-key", status: StatusFail, severity: SeverityHigh, say: msg("公钥无法解析为 RSA 密钥。", "The public key cannot be decoded as an RSA key.")},
		dkim.CodeInvalidEd25519Length: {id: "dkim.invalid-ed25519-length", status: StatusFail, severity: SeverityHigh, say: msg("Ed25519 公钥不是 %d 字节的原始密钥，验证方无法使用。", "The Ed25519 public key is not %d raw bytes, so verifiers cannot use it.", dkim.Ed25519KeySize)},
		dkim.CodeUnknownKeyType:       {id: "dkim.unknown-key-type", status: StatusFail, severity: SeverityHigh, say: msg("密钥类型 k= 不是 rsa 或 ed25519，验证方无法使用。", "The key type k= is neither rsa nor ed25519, so verifiers cannot use it.")},
		dkim.CodeKeyTooShort:          {id: "dkim.key-too-short", status: StatusFail, severity: SeverityHigh, say: msg("RSA 密钥短于 %d 位，验证方不会认可其签名。", "The RSA key is shorter than %d bits; verifiers do not accept its signatures.", dkim.MinRSABits)},
		dkim.CodeSHA256NotAllowed:     {id: "dkim.sha256-not-allowed", status: StatusFail, severity: SeverityHigh, say: msg("h= 标签不允许 SHA-256；SHA-1 签名已不再被接受。", "The h= tag does not allow SHA-256, and SHA-1 signatures are no longer accepted.")},
		dkim.CodeServiceNotEmail:      {id: "dkim.service-not-email", status: StatusFail, severity: SeverityHigh, say: msg("s= 标签不允许将该密钥用于电子邮件。", "The s= tag does not allow this key to be used for email.")},
		dkim.CodeWeakKey:              {id: "dkim.weak-key", status: StatusWarn, severity: SeverityMedium, say: msg("RSA 密钥短于 2048 位，低于 RFC 8301 对签名方建议的长度，强度偏弱。", "The RSA key is shorter than 2048 bits, below the length RFC 8301 recommends for signers, and is considered weak.")},
		dkim.CodeTestMode:             {id: "dkim.test-mode", status: StatusWarn, severity: SeverityLow, say: msg("密钥处于测试模式（t=y），验证方会把签名邮件视同未签名。", "The key is in test mode (t=y): verifiers treat signed mail as if it were unsigned.")},
		dkim.CodePKCS1Key:             {id: "dkim.pkcs1-key", status: StatusWarn, severity: SeverityLow, say: msg("RSA 公钥采用 PKCS#1 格式而非通常的 SubjectPublicKeyInfo，部分验证方无法读取。", "The RSA key is in PKCS#1 form instead of the usual SubjectPublicKeyInfo; some verifiers cannot read it.")},
		dkim.CodeLargeKey:             {id: "dkim.large-key", status: StatusWarn, severity: SeverityLow, say: msg("RSA 密钥超过 %d 位，部分验证方可能不支持。", "The RSA key is longer than %d bits, which some verifiers may not support.", dkim.MaxVerifiedRSABits)},
	}
	dkimFactRSA     = msg("密钥类型为 RSA，长度 %d 位。", "The key is RSA, %d bits long.")
	dkimFactEd25519 = msg("密钥类型为 Ed25519。许多验证方尚不支持 Ed25519，对它们而言，仅用此密钥签名的邮件相当于未签名。", "The key is Ed25519. Many verifiers do not support Ed25519 yet; to them, mail signed only with this key looks unsigned.")
	dkimFactStrict  = msg("密钥要求签名身份与域名完全一致（t=s），不允许子域名。", "The key requires the signing identity to match the domain exactly (t=s); subdomains are not allowed.")
	dkimFactAlias   = msg("该选择器是一个别名（CNAME），托管签名服务通常采用这种方式。", "The selector is an alias (CNAME), as hosted signing services use.")
)

// checkDKIM checks the key at the supplied selector; without one it is
// not evaluated (doc/scoring.md).
func (r *run) checkDKIM(ctx context.Context, dns resolver.Resolver) verdict {
	if r.sel == "" {
		return infoVerdict(txtDKIMNotEvaluated, txtDKIMNotEvaluatedDetails)
	}
	return judgeDKIM(dkim.Check(ctx, dns, r.sel, r.domain.ASCII))
}

// beginDKIM is checkDKIM without a goroutine (checkSpec.begin): the
// selector's TXT question is started, and its answer judged where it
// comes.
func (r *run) beginDKIM(ctx context.Context, dns resolver.Resolver, done func(func() verdict, bool)) {
	if r.sel == "" {
		done(func() verdict { return infoVerdict(txtDKIMNotEvaluated, txtDKIMNotEvaluatedDetails) }, false)
		return
	}
	name, early := dkim.Question(r.sel, r.domain.ASCII)
	if early != nil {
		done(func() verdict { return judgeDKIM(*early) }, false)
		return
	}
	resolver.Start(ctx, dns, name, resolver.TypeTXT, func(a resolver.Answer) {
		done(func() verdict { return judgeDKIM(dkim.Evaluate(a)) }, false)
	})
}

// judgeDKIM is the verdict on the facts of a DKIM selector check; it does
// no I/O.
func judgeDKIM(res dkim.Result) verdict {
	d := dkimDiagnostics(res)
	if !res.Conclusive() {
		return inconclusiveVerdict(d)
	}
	args := map[dkim.Code][]int{dkim.CodeMultipleRecords: {valueOf(res.RecordCount)}}
	return judge(dkimPass, rulesFor(res.Findings, dkimRules, args), dkimFacts(res), d)
}

func dkimFacts(res dkim.Result) []LocalizedText {
	out := dkimExplain(res)
	switch res.KeyType {
	case dkim.KeyTypeRSA:
		if res.KeyBits > 0 {
			out = append(out, dkimFactRSA.with(res.KeyBits))
		}
	case dkim.KeyTypeEd25519:
		out = append(out, dkimFactEd25519.with())
	}
	if valueOf(res.StrictIdentity) {
		out = append(out, dkimFactStrict.with())
	}
	if res.Aliased {
		out = append(out, dkimFactAlias.with())
	}
	return out
}

func dkimDiagnostics(res dkim.Result) *DKIMDiagnostics {
	d := &DKIMDiagnostics{
		RecordCount:         res.RecordCount,
		PublicKeyPresent:    res.PublicKeyPresent,
		Revoked:             res.Revoked,
		TestMode:            res.TestMode,
		StrictIdentity:      res.StrictIdentity,
		EmailServiceAllowed: res.EmailServiceAllowed,
		SHA256Allowed:       res.SHA256Allowed,
	}
	if res.KeyType != dkim.KeyTypeNone {
		d.KeyType = new(DKIMKeyType(res.KeyType))
	}
	return d
}

// dkimCheckRules lists the check's rules for the developer page: its named
// verdicts and the values of its finding table.
func dkimCheckRules() []rule {
	return append([]rule{notEvaluated("dkim.not-evaluated", txtDKIMNotEvaluated), dkimPass}, tableRules(dkimRules)...)
}

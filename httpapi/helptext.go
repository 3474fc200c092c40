package httpapi

import "github.com/mailauth/mailauth"

// The texts of the help pages (/help/<check>/): what each check looks at,
// what a good set-up looks like, and how each finding of the judgement
// tables is usually fixed. They are generic, never about a scanned domain,
// so the API's responses still carry no remediation. TestHelpCoversRules
// fails when a verdict of mailauth.StatusRules has no fix here.

// bi is a bilingual text.
func bi(zh, en string) mailauth.LocalizedText { return mailauth.LocalizedText{ZH: zh, EN: en} }

// checkHelp is the fixed part of one check's help page.
type checkHelp struct {
	// Looks says what the check looks at.
	Looks mailauth.LocalizedText
	// Good says what a good set-up looks like.
	Good mailauth.LocalizedText
	// Example is a good record, as it would appear in a zone file.
	Example string
}

// checkHelps are the help pages' fixed parts, by check.
var checkHelps = map[mailauth.CheckID]checkHelp{
	mailauth.CheckMX: {
		Looks: bi("读取域名的 MX 记录，并查询每台收件服务器的 A 和 AAAA 地址：服务器必须有公网地址，名称必须是有效的主机名；也识别表示“不收邮件”的空 MX（RFC 7505）。还会查询每台服务器的 DANE TLSA 记录（_25._tcp.<主机名>），在详情中说明 DANE 是否可用；DANE 的评判见 MTA-STS 检查。",
			"Reads the domain's MX records and looks up the A and AAAA addresses of each mail server: each must have a public address and a valid host name. A null MX (RFC 7505), which says the domain accepts no mail, is recognised too. It also looks up each server's DANE TLSA records (_25._tcp.<host>) and says in the details whether DANE is usable; the MTA-STS check weighs DANE."),
		Good: bi("一条或几条 MX 记录，指向有公网 IPv4（最好也有 IPv6）地址的主机名，而不是 IP 地址或别名（CNAME）。不收邮件的域名只发布一条 “MX 0 .”。",
			"One or a few MX records naming host names (not IP addresses, not CNAME aliases) with public IPv4, ideally also IPv6, addresses. A domain that receives no mail publishes exactly one \"MX 0 .\"."),
		Example: "example.com.      MX 10 mx1.example.com.\nexample.com.      MX 20 mx2.example.com.\nmx1.example.com.  A  203.0.113.10",
	},
	mailauth.CheckSPF: {
		Looks: bi("读取域名以 v=spf1 开头的 TXT 记录，展开其中的 include 和 redirect，统计评估所需的 DNS 查询次数（上限 10 次）和无结果查询次数（上限 2 次），并检查结尾的 all 机制。",
			"Reads the domain's TXT record that starts with v=spf1, expands its includes and redirects, counts the DNS lookups evaluation needs (limit 10) and the lookups that return nothing (limit 2), and checks the closing all mechanism."),
		Good: bi("只有一条 SPF 记录，列出所有实际发信的服务器或服务商（ip4、ip6、include），总查询次数不超过 10 次，并以 -all（或过渡期的 ~all）结尾。",
			"Exactly one SPF record that lists every server or provider that really sends your mail (ip4, ip6, include), needs at most 10 lookups in all, and ends in -all (or ~all while you migrate)."),
		Example: "example.com.  TXT \"v=spf1 mx ip4:203.0.113.0/24 include:_spf.mail-provider.example -all\"",
	},
	mailauth.CheckDMARC: {
		Looks: bi("按 RFC 9989 的树形查找，从 _dmarc.<域名> 开始向上寻找适用的 DMARC 记录，读取策略（p、sp、np）、对齐方式、测试模式和汇总报告地址（rua）。",
			"Finds the DMARC record that applies with the RFC 9989 tree walk, starting at _dmarc.<domain> and climbing towards the organisational domain, and reads its policy (p, sp, np), alignment modes, test mode and aggregate-report addresses (rua)."),
		Good: bi("一条有效记录，策略为 reject（或至少 quarantine），并用 rua 接收汇总报告。通常先用 p=none 收集报告，确认所有合法邮件都通过 SPF 或 DKIM 对齐后，再逐步收紧。",
			"One valid record with policy reject (or at least quarantine) and a rua address for aggregate reports. The usual path starts at p=none to collect reports, then tightens once every legitimate source passes aligned SPF or DKIM."),
		Example: "_dmarc.example.com.  TXT \"v=DMARC1; p=reject; rua=mailto:dmarc-reports@example.com\"",
	},
	mailauth.CheckDKIM: {
		Looks: bi("读取 <选择器>._domainkey.<域名> 下的 DKIM 公钥记录，检查版本、密钥类型、密钥长度、撤销状态、测试模式以及 h= 和 s= 限制。只有提供选择器时才检查，本服务从不猜测选择器。",
			"Reads the DKIM key record at <selector>._domainkey.<domain> and checks its version, key type, key length, revocation, test mode and the h= and s= restrictions. It runs only for a selector you supply; the service never guesses one."),
		Good: bi("选择器下只有一条记录，以 v=DKIM1 开头，含 2048 位 RSA 公钥（或 Ed25519 公钥），不处于测试模式。选择器可以在已发邮件的 DKIM-Signature 头中 s= 标签找到。",
			"One record at the selector, starting with v=DKIM1, holding a 2048-bit RSA (or an Ed25519) public key, not in test mode. The selector is the s= tag of the DKIM-Signature header of a message you sent."),
		Example: "s1._domainkey.example.com.  TXT \"v=DKIM1; k=rsa; p=MIIBIjANBgkqh…IDAQAB\"",
	},
	mailauth.CheckMTASTS: {
		Looks: bi("读取 _mta-sts.<域名> 的声明记录，通过 HTTPS 从 mta-sts.<域名>/.well-known/mta-sts.txt 获取策略文件，检查模式、有效期（max_age）以及 mx 模式是否覆盖所有收件服务器。同时权衡 DANE（RFC 7672）：收件服务器在 _25._tcp.<主机名> 发布 TLSA 记录、且 MX 和 TLSA 记录都经过 DNSSEC 验证时，支持 DANE 的发件方会强制使用经过认证的 TLS；只有 DANE-TA（2）和 DANE-EE（3）用法可用于 SMTP，PKIX 用法（0、1）不可用。所有收件服务器都有可用的 DANE 时，没有 MTA-STS 不算失败。",
			"Reads the _mta-sts.<domain> announcement, fetches the policy over HTTPS from mta-sts.<domain>/.well-known/mta-sts.txt, and checks its mode, its lifetime (max_age) and whether its mx patterns cover every mail server. It weighs DANE too (RFC 7672): when the mail servers publish TLSA records at _25._tcp.<host> and both the MX and the TLSA records are DNSSEC-validated, DANE-aware senders enforce authenticated TLS. Only the DANE-TA (2) and DANE-EE (3) usages work for SMTP; the PKIX usages (0, 1) do not. With usable DANE on every mail server, a missing MTA-STS is not a failure."),
		Good: bi("一条 v=STSv1 声明记录；策略文件以 text/plain 提供，证书有效，mode 为 enforce，mx 行覆盖所有 MX 主机，max_age 为一周或更长。更改策略时同时更新记录中的 id。如果域名和收件服务器都已启用 DNSSEC，再为每台收件服务器发布 DANE-EE 的 TLSA 记录（“3 1 1”），这样验证 DNSSEC 的发件方和不验证的发件方都会强制加密。",
			"One v=STSv1 announcement; a policy file served as text/plain with a valid certificate, mode enforce, mx lines covering every MX host and a max_age of a week or more. Change the id in the record whenever the policy changes. Where the domain and its mail servers are DNSSEC-signed, add DANE-EE TLSA records (\"3 1 1\") for every mail server, so that senders that validate DNSSEC and those that do not both enforce TLS."),
		Example: "_mta-sts.example.com.  TXT \"v=STSv1; id=20260101T000000\"\n\n# https://mta-sts.example.com/.well-known/mta-sts.txt\nversion: STSv1\nmode: enforce\nmx: mx1.example.com\nmax_age: 604800\n\n# DANE (DNSSEC-signed zones only): the SHA-256 of the server's public key\n_25._tcp.mx1.example.com.  TLSA 3 1 1 8cb0fc6c527506a053f4f14c8464bebbd6dede2738d11468dd953d7d6a3021f1",
	},
	mailauth.CheckTLSRPT: {
		Looks: bi("读取 _smtp._tls.<域名> 下的 TLSRPTv1 记录和其中的报告地址（rua）：发件方在加密投递失败时会向这些地址发送报告。",
			"Reads the TLSRPTv1 record at _smtp._tls.<domain> and its report addresses (rua), where senders send reports when encrypted delivery fails."),
		Good: bi("只有一条记录，含一个 rua 字段，列出一个或多个 mailto: 或 https: 地址。",
			"Exactly one record with one rua field listing one or more mailto: or https: addresses."),
		Example: "_smtp._tls.example.com.  TXT \"v=TLSRPTv1; rua=mailto:tls-reports@example.com\"",
	},
	mailauth.CheckPTR: {
		Looks: bi("查询发件 IP 的反向解析（PTR）名称，再对这些名称做 A 或 AAAA 查询，看是否有名称指回同一个 IP（正向确认）。只有提供发件 IP 时才检查。",
			"Looks up the reverse DNS (PTR) names of the sending IP, then the A or AAAA addresses of those names, to see whether one points back to the same IP (forward confirmation). It runs only for a sending IP you supply."),
		Good: bi("发件 IP 只有一个 PTR 名称，例如 mail.example.com，它是有效的主机名，并且其 A 或 AAAA 记录正好指回该 IP。PTR 记录由 IP 地址的持有者（通常是主机商或网络运营商）设置。",
			"The sending IP has one PTR name such as mail.example.com, a valid host name whose A or AAAA record points back to that IP. The PTR record is set by whoever holds the address, usually the hosting provider or network operator."),
		Example: "25.113.0.203.in-addr.arpa.  PTR mail.example.com.\nmail.example.com.           A   203.0.113.25",
	},
	mailauth.CheckCAA: {
		Looks: bi("按 RFC 8659 从域名向上查找第一组 CAA 记录，检查其中的 issue、issuewild、iodef 等属性；也检查 MTA-STS 策略主机 mta-sts.<域名> 能否获得证书。",
			"Finds the first CAA record set from the domain upwards (RFC 8659) and checks its issue, issuewild, iodef and other properties; it also checks that the MTA-STS policy host, mta-sts.<domain>, can obtain a certificate."),
		Good: bi("用 issue 属性列出你实际使用的证书颁发机构；如需通配符证书再加 issuewild；可以用 iodef 接收违规报告。",
			"issue properties naming the certificate authorities you actually use, issuewild if you need wildcard certificates, and optionally an iodef address for reports."),
		Example: "example.com.  CAA 0 issue \"letsencrypt.org\"\nexample.com.  CAA 0 iodef \"mailto:security@example.com\"",
	},
}

// findingFixes say how each verdict of the judgement tables is usually
// fixed (or why nothing needs fixing), keyed by the verdict's English
// sentence as mailauth.StatusRules gives it (counts written N).
var findingFixes = map[string]mailauth.LocalizedText{
	// Every check.
	"scan.inconclusive":   bi("重新扫描。如果反复出现，可能是该域名的记录需要的 DNS 查询次数超出了一次扫描的上限（例如 SPF 引用链过长），或者它的服务器返回了无法使用的应答（可以用 dig 检查）；这两种情况都值得修复。", "Scan again. If it keeps happening, the domain's records may need more DNS lookups than one scan allows (a very long SPF include chain, say), or its servers send replies that cannot be used (check them with dig): both are worth fixing."),
	"scan.timed-out":      bi("稍后重新检查。DNS 服务器响应很慢或引用链很长时会出现这种情况。", "Scan again later. Slow DNS servers or very long include chains cause this."),
	"scan.internal-error": bi("稍后重新检查；如果反复出现，请向本服务报告。", "Scan again later; if it keeps happening, report it to the service."),

	// MX.
	"mx.none":                  bi("发布指向收件服务器的 MX 记录；如果域名不收邮件，发布 “MX 0 .”（空 MX）。", "Publish MX records naming your mail servers; if the domain receives no mail, publish \"MX 0 .\" (null MX)."),
	"mx.nxdomain":              bi("检查域名拼写。如果拼写无误，请确认域名已注册，并在注册商处设置了正确的域名服务器。", "Check the spelling. If it is right, make sure the domain is registered and delegated to the right name servers at the registrar."),
	"mx.none-usable":           bi("为每个 MX 主机名添加公网 A 或 AAAA 记录，或把 MX 改为指向服务商给出的主机名。", "Give each MX host name public A or AAAA records, or point the MX records at the host names your mail provider gives you."),
	"mx.null-mx-mixed":         bi("二选一：收邮件就删除 “MX 0 .”，不收邮件就删除其他 MX 记录。", "Choose one: delete \"MX 0 .\" if the domain receives mail, or delete the other MX records if it does not."),
	"mx.implicit":              bi("显式发布 MX 记录；如果域名不收邮件，发布 “MX 0 .”。", "Publish explicit MX records; if the domain receives no mail, publish \"MX 0 .\"."),
	"mx.some-unusable":         bi("修复或删除没有公网地址的 MX 主机。", "Fix or remove the MX hosts that have no public address."),
	"mx.exchange-ip-literal":   bi("为该地址设置一个主机名（A 或 AAAA 记录），让 MX 指向这个主机名。", "Give the address a host name (an A or AAAA record) and let the MX record name that host."),
	"mx.exchange-inconclusive": bi("稍后重新检查；如果反复出现，请检查这些主机名所在区域的 DNS 服务器。", "Scan again later; if it keeps happening, check the DNS servers of the zones those host names are in."),
	"mx.null-mx-invalid":       bi("只保留一条 “MX 0 .” 记录。", "Keep exactly one record: \"MX 0 .\"."),
	"mx.exchange-ipv6-only":    bi("为该服务器再添加一个 IPv4（A）地址。", "Add an IPv4 (A) address to that server."),
	"mx.exchange-alias":        bi("让 MX 直接指向别名的目标主机名。", "Point the MX record at the alias's target host name directly."),
	"mx.exchange-not-hostname": bi("改用只含字母、数字和连字符的主机名。", "Use a host name made of letters, digits and hyphens only."),
	"mx.exchange-duplicated":   bi("删除重复的 MX 记录。", "Delete the duplicate MX records."),
	"mx.too-many-exchanges":    bi("通常不需要这么多 MX 记录，可以精简到几台。", "So many MX records are rarely needed; a few are enough."),
	"mx.pass":                  bi("无需处理。", "Nothing to fix."),
	"mx.null":                  bi("如果该域名确实不收邮件，无需处理；否则删除空 MX 并发布真正的 MX 记录。", "Nothing to fix if the domain really receives no mail; otherwise replace the null MX with real MX records."),

	// SPF.
	"spf.lookup-limit-at-least": bi("删除不再使用的 include；把固定地址写成 ip4/ip6；必要时把部分发信服务移到子域名，使总查询次数不超过 10 次。", "Remove includes you no longer use, write fixed addresses as ip4/ip6, and if needed move some senders to a subdomain, so that no more than 10 lookups remain."),
	"spf.lookup-limit":          bi("删除不再使用的 include；把固定地址写成 ip4/ip6；必要时把部分发信服务移到子域名，使总查询次数不超过 10 次。", "Remove includes you no longer use, write fixed addresses as ip4/ip6, and if needed move some senders to a subdomain, so that no more than 10 lookups remain."),
	"spf.multiple-records":      bi("把所有记录合并成一条 v=spf1 记录，只保留一个 all。", "Merge them into one v=spf1 record with a single all at the end."),
	"spf.void-limit-exceeded":   bi("删除指向已不存在名称的 include、a、mx 或 exists。", "Remove the include, a, mx or exists terms that name something that no longer exists."),
	"spf.range-pass-all":        bi("改为实际发信服务器的网段，例如 ip4:203.0.113.0/24。", "Replace it with the networks your mail really leaves from, such as ip4:203.0.113.0/24."),
	"spf.exists-pass-all":       bi("让 exists 检查的名称包含发件人相关的宏（例如 %{i}），或删除该机制。", "Make the exists name depend on the sender through a macro such as %{i}, or remove it."),
	"spf.include-invalid":       bi("修正 include 或 redirect 的域名拼写，或删除已停用服务的 include。", "Fix the spelling of the included or redirected domain, or remove the include of a service you no longer use."),
	"spf.include-pass-all":      bi("删除该 include，或请其维护方把结尾改为 -all 或 ~all。", "Remove that include, or ask whoever runs it to end it in -all or ~all."),
	"spf.mx-too-many":           bi("改用 ip4/ip6 列出这些服务器的地址，或减少 MX 记录。", "List the servers' addresses with ip4/ip6 instead, or publish fewer MX records."),
	"spf.syntax":                bi("按详情中给出的位置改正那一项；常见问题是拼写错误、多余的空格或缺少冒号。", "Correct the term the details point at; typical causes are typos, stray spaces or a missing colon."),
	"spf.loop":                  bi("删除形成循环的 include 或 redirect。", "Remove the include or redirect that closes the loop."),
	"spf.all-pass":              bi("把 +all 改为 -all（或过渡期的 ~all）。", "Change +all to -all (or ~all while you migrate)."),
	"spf.all-neutral":           bi("列出所有发信服务器后，把 ?all 改为 -all 或 ~all。", "Once every sender is listed, change ?all to -all or ~all."),
	"spf.no-record":             bi("发布一条 v=spf1 记录，列出实际发信的服务器并以 -all 结尾；不发邮件的域名发布 “v=spf1 -all”。", "Publish one v=spf1 record listing the servers that send your mail, ending in -all; a domain that sends no mail publishes \"v=spf1 -all\"."),
	"spf.invalid-target-name":   bi("改正该机制中的域名（常见原因是多了一个点）。", "Correct the name in that term (a doubled dot is a common cause)."),
	"spf.redirect-at-limit":     bi("删除不起作用的 redirect。", "Remove the unused redirect."),
	"spf.term-inconclusive":     bi("稍后重新检查；如果反复出现，请检查这些名称所在的 DNS 服务器。", "Scan again later; if it keeps happening, check the DNS servers of those names."),
	"spf.include-inconclusive":  bi("稍后重新检查；如果反复出现，请检查被引用域名的 DNS 服务器。", "Scan again later; if it keeps happening, check the DNS servers of the included domains."),
	"spf.record-too-long":       bi("精简记录：合并网段，删除不再使用的机制，或把一部分移到 include 的子记录中。", "Shorten it: merge networks, drop terms you no longer use, or move some of them into an included record."),
	"spf.safety-bound":          bi("减少嵌套的 include 层数。", "Reduce how deeply includes nest."),
	"spf.no-all":                bi("在记录末尾加上 -all（或 ~all）。", "Add -all (or ~all) at the end of the record."),
	"spf.record-long":           bi("考虑精简记录，给以后的修改留出余地。", "Consider shortening it to leave room for later changes."),
	"spf.ptr-macro":             bi("改用 ip4/ip6 或 include 列出发信服务器。", "List the senders with ip4/ip6 or include instead."),
	"spf.ptr-used":              bi("删除 ptr，改用 ip4/ip6 或 a 列出发信服务器。", "Remove ptr and list the senders with ip4/ip6 or a instead."),
	"spf.dead-terms":            bi("把需要的机制移到 all 之前，删除其余部分。", "Move the terms you need before all and delete the rest."),
	"spf.pass":                  bi("无需处理。新增发信服务时记得更新记录。", "Nothing to fix. Remember to update it when you add a sending service."),

	// Names too long to exist.
	"mta-sts.name-too-long": bi("这个域名无法发布 MTA-STS；如需要，请改用较短的域名收发邮件。", "This domain cannot publish MTA-STS; use a shorter domain for mail if you need it."),
	"tls-rpt.name-too-long": bi("这个域名无法发布 TLS-RPT；如需要，请改用较短的域名收发邮件。", "This domain cannot publish TLS-RPT; use a shorter domain for mail if you need it."),

	// DMARC.
	"dmarc.missing":               bi("在 _dmarc.<域名> 发布记录，可以先用 “v=DMARC1; p=none; rua=mailto:…” 收集报告，再逐步收紧到 reject。", "Publish a record at _dmarc.<domain>; you can start with \"v=DMARC1; p=none; rua=mailto:…\" to collect reports, then move to reject."),
	"dmarc.no-policy":             bi("在记录中加上有效的 p= 标签（none、quarantine 或 reject）和 rua 地址。", "Add a valid p= tag (none, quarantine or reject) and a rua address to the record."),
	"dmarc.none":                  bi("阅读汇总报告，确认所有合法邮件都通过对齐的 SPF 或 DKIM 后，改为 p=quarantine，再改为 p=reject。", "Read the aggregate reports; once all legitimate mail passes aligned SPF or DKIM, move to p=quarantine, then p=reject."),
	"dmarc.fallback":              bi("加上或改正 p= 标签。", "Add or correct the p= tag."),
	"dmarc.test-mode":             bi("测试完成后删除 t=y。", "Remove t=y once testing is over."),
	"dmarc.own-discarded":         bi("合并为一条 DMARC 记录。", "Merge them into a single DMARC record."),
	"dmarc.subdomain-policy-none": bi("删除 sp=none（子域名将沿用 p），或把它设为 quarantine 或 reject。", "Remove sp=none (subdomains then follow p) or set it to quarantine or reject."),
	"dmarc.existence-unknown":     bi("稍后重新检查；如果反复出现，请检查该域名的 DNS 服务器。", "Scan again later; if it keeps happening, check the domain's DNS servers."),
	"dmarc.invalid-ruf":           bi("改正 ruf 地址（mailto: 加邮箱地址），或删除 ruf。", "Correct the ruf address (mailto: and a mailbox) or remove ruf."),
	"dmarc.nearer-record-ignored": bi("检查各级 _dmarc 记录，删除不需要的记录，或在需要的记录上设置 psd 标签。", "Review the _dmarc records at each level: remove the ones you do not need, or set the psd tag where it belongs."),
	"dmarc.uri-no-address":        bi("在 mailto: 后面写上接收报告的邮箱，例如 rua=mailto:dmarc-reports@<域名>。", "Put the mailbox that receives reports after mailto:, such as rua=mailto:dmarc-reports@<domain>."),
	"dmarc.invalid-rua":           bi("每个报告地址都写成 mailto: 加邮箱地址，多个地址用逗号分隔，例如 rua=mailto:dmarc@<域名>。", "Write each report address as mailto: followed by a mailbox, separated by commas, such as rua=mailto:dmarc@<domain>."),
	"dmarc.external-unauthorized": bi("请接收报告的一方在其域名下发布授权记录 <你的域名>._report._dmarc.<对方域名> TXT \"v=DMARC1\"（RFC 9990），或改用自己域名下的邮箱。", "Ask the receiving party to publish the authorization record <your domain>._report._dmarc.<their domain> TXT \"v=DMARC1\" (RFC 9990), or use a mailbox of your own domain."),
	"dmarc.duplicate-tag":         bi("删除重复的标签。", "Delete the repeated tag."),
	"dmarc.malformed-tag":         bi("检查分号和等号：每个标签写成 “名称=值”，用分号分隔。", "Check the semicolons and equals signs: each tag is name=value, separated by semicolons."),
	"dmarc.invalid-adkim":         bi("把 adkim 设为 r 或 s，或删除它（默认 r）。", "Set adkim to r or s, or remove it (the default is r)."),
	"dmarc.invalid-aspf":          bi("把 aspf 设为 r 或 s，或删除它（默认 r）。", "Set aspf to r or s, or remove it (the default is r)."),
	"dmarc.invalid-fo":            bi("把 fo 设为 0、1、d、s 的组合，或删除它。", "Set fo to a combination of 0, 1, d and s, or remove it."),
	"dmarc.invalid-psd":           bi("把 psd 设为 y、n 或 u，或删除它。", "Set psd to y, n or u, or remove it."),
	"dmarc.legacy-pct":            bi("删除 pct 标签，或把它设为 100；需要分阶段时改用 t=y。", "Remove the pct tag or set it to 100; use t=y for a staged roll-out instead."),
	"dmarc.invalid-t":             bi("把 t 设为 y 或 n，或删除它。", "Set t to y or n, or remove it."),
	"dmarc.tag-name-case":         bi("把标签名改成小写（p=、sp=、adkim= 等）。", "Write the tag names in lower case (p=, sp=, adkim= and so on)."),
	"scan.dnssec-bogus":           bi("检查 DNS 服务商的 DNSSEC 设置：签名是否过期、密钥轮换后上级域名中的 DS 记录是否已更新；无法及时修复时，先从上级域名删除 DS 记录（关闭 DNSSEC），再重新签名。", "Check the DNSSEC set-up at your DNS provider: expired signatures, or a DS record at the parent that no longer matches the keys after a rollover. If it cannot be fixed quickly, remove the DS record at the parent (turning DNSSEC off) before re-signing."),
	"scan.dnssec-bogus-elsewhere": bi("找出记录指向的那个名称（include 目标、收件服务器、策略主机）所属的域名，请它的管理者修复 DNSSEC，或改为指向其他名称。", "Find the domain of the name your records point to (an include target, a mail server, the policy host) and have its operator fix DNSSEC, or point to another name."),
	"scan.no-answer":              bi("核对上级域名中登记的 NS 记录与 DNS 服务商实际提供服务的服务器是否一致，并确认每台服务器都对该区域作权威应答（不拒绝、不超时）。", "Check that the NS records at the parent match the servers your DNS provider really runs, and that each of them answers authoritatively for the zone (no refusal, no time-out)."),
	"scan.no-answer-elsewhere":    bi("记录指向的名称所属的域名服务器不可用：联系它的管理者，或改为指向可用的名称。", "The name servers of a name your records point to are not usable: contact its operator, or point to a name that works."),
	"scan.alias-broken":           bi("让 CNAME 直接指向最终名称：去掉循环，并把链缩短到一两跳。", "Point the CNAME straight at the final name: remove the loop and keep the chain to one or two hops."),
	"scan.alias-broken-elsewhere": bi("改为指向不经过长别名链的名称，或请它的管理者缩短别名链。", "Point to a name without the long alias chain, or ask its operator to shorten it."),
	"dmarc.uppercase-version-tag": bi("把记录开头写成小写的 v=DMARC1。", "Start the record with a lower-case v=DMARC1."),
	"dmarc.reject":                bi("无需处理。", "Nothing to fix."),
	"dmarc.quarantine":            bi("可以考虑在确认没有误伤后改为 p=reject。", "Consider p=reject once you are sure no legitimate mail is caught."),
	"scan.slow":                   bi("过一会儿重新扫描：解析器通常已缓存了这些应答。如果每次都很慢，请检查域名服务器的响应时间（例如用 dig 直接查询每台 NS），并考虑换用响应更快或分布更广的 DNS 服务商。", "Scan again in a moment: the resolver usually has the answers cached by then. If it is slow every time, check how fast each of the domain's name servers answers (dig each NS directly), and consider a faster or better-distributed DNS provider."),

	// DKIM.
	"dkim.duplicate-tag":          bi("删除重复的标签。", "Delete the repeated tag."),
	"dkim.no-record":              bi("检查选择器拼写；按邮件服务商的说明在 <选择器>._domainkey.<域名> 发布公钥。", "Check the selector's spelling, and publish the key at <selector>._domainkey.<domain> as your mail provider describes."),
	"dkim.invalid-ed25519-length": bi("重新导出公钥：p= 应是 32 字节原始公钥的 Base64。", "Export the key again: p= must be the Base64 of the 32-byte raw public key."),
	"dkim.key-too-short":          bi("生成 2048 位的新密钥，用新选择器发布后切换签名。", "Generate a 2048-bit key, publish it under a new selector and switch signing to it."),
	"dkim.not-dkim-record":        bi("把该名称下的记录替换为以 v=DKIM1 开头的公钥记录。", "Replace the record at that name with a key record starting with v=DKIM1."),
	"dkim.sha256-not-allowed":     bi("删除 h= 标签，或把它设为 sha256。", "Remove the h= tag or set it to sha256."),
	"dkim.unknown-key-type":       bi("改用 RSA 或 Ed25519 密钥，并把 k= 设为对应值。", "Use an RSA or Ed25519 key and set k= accordingly."),
	"dkim.invalid-key":            bi("从签名系统重新复制公钥，注意不要截断，也不要带上 PEM 头尾行。", "Copy the public key again from the signing system, whole, without the PEM header and footer lines."),
	"dkim.invalid-base64":         bi("重新复制公钥，删除多余的空格、引号或换行。", "Copy the key again and remove stray spaces, quotes or line breaks."),
	"dkim.key-missing":            bi("加上 p= 标签和公钥。", "Add the p= tag with the public key."),
	"dkim.invalid-version":        bi("把版本写成 v=DKIM1，或删除 v= 标签。", "Write the version as v=DKIM1, or remove the v= tag."),
	"dkim.service-not-email":      bi("删除 s= 标签，或把它设为 email 或 *。", "Remove the s= tag or set it to email or *."),
	"dkim.dangling-cname":         bi("修正 CNAME 的目标，或按服务商的说明重新设置选择器。", "Fix the CNAME's target, or set up the selector again as your provider describes."),
	"dkim.version-not-first":      bi("把 v=DKIM1 移到记录开头。", "Move v=DKIM1 to the start of the record."),
	"dkim.key-revoked":            bi("如果仍在用该选择器签名，请改用有有效密钥的选择器；否则无需处理。", "If mail is still signed with this selector, switch signing to one with a valid key; otherwise nothing to fix."),
	"dkim.weak-key":               bi("生成 2048 位的新密钥，用新选择器发布后切换签名。", "Generate a 2048-bit key, publish it under a new selector and switch signing to it."),
	"dkim.multiple-records":       bi("在该选择器下只保留一条记录。", "Keep exactly one record at the selector."),
	"dkim.pkcs1-key":              bi("以 SubjectPublicKeyInfo（以 MIIB 开头的 Base64）格式重新导出公钥。", "Export the key again in SubjectPublicKeyInfo form (Base64 starting with MIIB)."),
	"dkim.large-key":              bi("改用 2048 位密钥。", "Use a 2048-bit key instead."),
	"dkim.test-mode":              bi("测试完成后删除 t=y。", "Remove t=y once testing is over."),
	"dkim.pass":                   bi("无需处理。定期（例如每年）轮换密钥是好习惯。", "Nothing to fix. Rotating keys now and then (say yearly) is good practice."),
	"dkim.not-evaluated":          bi("填写选择器后重新检查：它是已发邮件 DKIM-Signature 头中 s= 的值。", "Scan again with a selector: the s= value of a sent message's DKIM-Signature header."),

	// MTA-STS.
	"mta-sts.uncovered":                    bi("在策略文件中为每台 MX 主机加上 mx 行，更新记录中的 id。", "Add an mx line for each MX host to the policy file and change the id in the record."),
	"mta-sts.announcement-invalid":         bi("只保留一条 “v=STSv1; id=…” 记录。", "Keep exactly one \"v=STSv1; id=…\" record."),
	"mta-sts.unreachable":                  bi("确认 mta-sts.<域名> 有地址、证书有效，并在 /.well-known/mta-sts.txt 提供策略文件，不要重定向。", "Make sure mta-sts.<domain> resolves, has a valid certificate and serves /.well-known/mta-sts.txt without a redirect."),
	"mta-sts.invalid":                      bi("按 RFC 8461 的格式改写策略文件：version、mode、mx、max_age 各占一行。", "Rewrite the policy as RFC 8461 describes: version, mode, mx and max_age lines."),
	"mta-sts.missing":                      bi("发布 _mta-sts 记录和策略文件；可以先用 mode: testing，确认无误后改为 enforce。", "Publish the _mta-sts record and a policy file; start with mode: testing, then switch to enforce."),
	"mta-sts.mode-none":                    bi("如果不是有意撤销，把 mode 改为 testing 或 enforce 并更新 id。", "Unless you meant to withdraw it, set mode to testing or enforce and change the id."),
	"mta-sts.fetch-inconclusive":           bi("稍后重新检查；如果反复出现，请检查 mta-sts.<域名> 的 DNS 和 Web 服务器。", "Scan again later; if it keeps happening, check the DNS and web server of mta-sts.<domain>."),
	"mta-sts.mx-inconclusive":              bi("稍后重新检查；如果反复出现，请检查该域名的 DNS 服务器。", "Scan again later; if it keeps happening, check the domain's DNS servers."),
	"mta-sts.testing":                      bi("用 TLS-RPT 报告确认没有投递失败后，改为 mode: enforce 并更新 id。", "Once TLS-RPT reports show no failures, switch to mode: enforce and change the id."),
	"mta-sts.uncovered-testing":            bi("在策略文件中为每台 MX 主机加上 mx 行，再考虑改为 enforce。", "Add an mx line for each MX host to the policy file before moving to enforce."),
	"mta-sts.announcement-duplicate-field": bi("删除重复的字段。", "Delete the repeated field."),
	"mta-sts.policy-media-type":            bi("让 Web 服务器以 Content-Type: text/plain 提供策略文件。", "Serve the policy file with Content-Type: text/plain."),
	"mta-sts.policy-duplicate-field":       bi("删除重复的字段（mx 行可以有多条）。", "Delete the repeated field (mx lines may repeat)."),
	"mta-sts.policy-max-age-zero":          bi("把 max_age 设为至少一周（604800 秒）。", "Set max_age to at least a week (604800 seconds)."),
	"mta-sts.enforce":                      bi("无需处理。修改 MX 时记得同时更新策略文件和 id。", "Nothing to fix. When you change MX hosts, update the policy and its id too."),
	"mta-sts.no-mail":                      bi("无需处理。", "Nothing to fix."),

	// DANE, judged with MTA-STS.
	"mta-sts.dane-only":        bi("无需处理。如果希望不验证 DNSSEC 的发件方（包括几家大型邮箱服务商）也强制加密，可以再发布 MTA-STS，两者可以并存。", "Nothing to fix. To hold the senders that do not validate DNSSEC (some large mailbox providers among them) to TLS as well, publish MTA-STS too; the two work side by side."),
	"mta-sts.dane-testing":     bi("用 TLS-RPT 报告确认没有投递失败后，把 MTA-STS 改为 mode: enforce 并更新 id。", "Once TLS-RPT reports show no failures, switch MTA-STS to mode: enforce and change the id."),
	"mta-sts.dane-bogus":       bi("修复该服务器名称所在区域的 DNSSEC 签名（过期的签名、与上级 DS 不符的密钥），或在修复前删除这些 TLSA 记录。", "Repair the DNSSEC signatures of the zone the server's name is in (expired signatures, a key that no longer matches the parent's DS), or remove the TLSA records until it is fixed."),
	"mta-sts.dane-mx-unsigned": bi("为该域名启用 DNSSEC：在 DNS 服务商处签名区域，并在注册商处发布 DS 记录。", "Enable DNSSEC for the domain: sign the zone at its DNS provider and publish the DS record at the registrar."),
	"mta-sts.dane-unsigned":    bi("为服务器名称所在的区域启用 DNSSEC，或删除这些没有作用的 TLSA 记录。", "Sign the zone the server's name is in with DNSSEC, or remove the TLSA records, which do nothing without it."),
	"mta-sts.dane-pkix-only":   bi("改为发布 “3 1 1”（DANE-EE，公钥的 SHA-256）记录；更换证书时若公钥不变，记录无需更新。", "Publish \"3 1 1\" records (DANE-EE, SHA-256 of the public key) instead; they stay valid across certificate renewals that keep the key."),
	"mta-sts.dane-parameters":  bi("按 RFC 6698 改正记录：用法 2 或 3，选择器 0 或 1，匹配类型 1（64 位十六进制的 SHA-256）或 2（128 位十六进制的 SHA-512）。", "Correct the record as RFC 6698 describes: usage 2 or 3, selector 0 or 1, matching type 1 (SHA-256, 64 hex digits) or 2 (SHA-512, 128 hex digits)."),
	"mta-sts.dane-partial":     bi("为每台 MX 主机都在 _25._tcp.<主机名> 发布 TLSA 记录，或从 MX 中移除没有 TLSA 的服务器。", "Publish TLSA records at _25._tcp.<host> for every MX host, or remove the servers without them from the MX records."),

	// TLS-RPT.
	"tls-rpt.missing":                   bi("在 _smtp._tls.<域名> 发布 “v=TLSRPTv1; rua=mailto:…” 记录。", "Publish \"v=TLSRPTv1; rua=mailto:…\" at _smtp._tls.<domain>."),
	"tls-rpt.invalid":                   bi("改正记录：以 v=TLSRPTv1 开头，rua 列出 mailto: 或 https: 地址。", "Correct the record: start with v=TLSRPTv1 and list mailto: or https: addresses in rua."),
	"tls-rpt.multiple-records":          bi("合并为一条记录。", "Merge them into one record."),
	"tls-rpt.some-invalid-destinations": bi("改正或删除无效的地址。", "Correct or remove the invalid addresses."),
	"tls-rpt.duplicate-rua":             bi("把所有地址放进同一个 rua 字段，用逗号分隔。", "Put every address in one rua field, separated by commas."),
	"tls-rpt.pass":                      bi("无需处理。", "Nothing to fix."),
	"tls-rpt.no-mail":                   bi("无需处理。", "Nothing to fix."),

	// PTR.
	"ptr.no-ptr":         bi("请 IP 地址的提供方（主机商或网络运营商）设置 PTR 记录，指向发信服务器的主机名。", "Ask the address's provider (hosting provider or network operator) to set a PTR record naming the sending server's host name."),
	"ptr.mismatch":       bi("为 PTR 中的主机名添加指回该 IP 的 A 或 AAAA 记录。", "Add an A or AAAA record for the PTR host name that points back to the IP."),
	"ptr.no-usable-name": bi("请地址提供方把 PTR 改为有效的主机名，例如 mail.example.com。", "Ask the address's provider to set the PTR to a valid host name such as mail.example.com."),
	"ptr.inconclusive":   bi("稍后重新检查；如果反复出现，请检查 PTR 主机名所在区域的 DNS 服务器。", "Scan again later; if it keeps happening, check the DNS servers of the PTR host name's zone."),
	"ptr.localhost-name": bi("请地址提供方把 PTR 改为发信服务器的真实主机名。", "Ask the address's provider to set the PTR to the sending server's real host name."),
	"ptr.invalid-name":   bi("请地址提供方改用只含字母、数字和连字符的主机名。", "Ask the address's provider for a host name of letters, digits and hyphens only."),
	"ptr.too-many-names": bi("一个发信 IP 通常只需要一个 PTR 名称。", "One PTR name per sending IP is usually enough."),
	"ptr.generic-name":   bi("请地址提供方设置一个像 mail.example.com 这样的专用名称。", "Ask the address's provider for a dedicated name such as mail.example.com."),
	"ptr.pass":           bi("无需处理。", "Nothing to fix."),
	"ptr.not-evaluated":  bi("填写实际发信使用的公网 IP 后重新检查。", "Scan again with the public IP address your mail leaves from."),

	// CAA.
	"caa.critical":             bi("删除该属性的 critical 标志（128），或改正标签拼写。", "Remove the critical flag (128) from that property, or correct its tag."),
	"caa.forbid-all":           bi("如果需要证书，用 issue 属性列出所用的证书颁发机构。", "If you need certificates, name your certificate authority in an issue property."),
	"caa.mta-sts-forbid-all":   bi("允许 mta-sts.<域名> 所用的证书颁发机构签发证书，例如在该名称上单独发布 CAA。", "Allow the certificate authority of mta-sts.<domain>, for instance with its own CAA records at that name."),
	"caa.mta-sts-inconclusive": bi("稍后重新检查；如果反复出现，请检查该名称的 DNS 服务器。", "Scan again later; if it keeps happening, check the DNS servers of that name."),
	"caa.invalid-tag":          bi("改正或删除这些属性。", "Correct or remove those properties."),
	"caa.reserved-flags":       bi("把标志改为 0（或表示 critical 的 128）。", "Set the flags to 0 (or 128 for critical)."),
	"caa.issue-malformed":      bi("按 “0 issue \"ca.example\"” 的格式改写。", "Rewrite them as 0 issue \"ca.example\"."),
	"caa.issue-mail-malformed": bi("按 “0 issuemail \"ca.example\"” 的格式改写。", "Rewrite them as 0 issuemail \"ca.example\"."),
	"caa.issuer-trailing-dot":  bi("删除颁发机构名称末尾的点。", "Remove the trailing dot from the issuer names."),
	"caa.issuer-case":          bi("把 issue 或 issuewild 中的证书颁发机构域名改为全小写，例如 letsencrypt.org。", "Write the issuer domain name of issue or issuewild in lower case, such as letsencrypt.org."),
	"caa.critical-optional":    bi("去掉该属性的关键标志（flags 改为 0）；联系信息类属性不需要标记为关键。", "Clear the critical flag of that property (set its flags to 0); contact properties never need to be critical."),
	"caa.issue-wild-malformed": bi("按 “0 issuewild \"ca.example\"” 的格式改写。", "Rewrite them as 0 issuewild \"ca.example\"."),
	"caa.iodef-invalid":        bi("改为 mailto: 或 https: 地址。", "Use a mailto: or https: address."),
	"caa.pass":                 bi("无需处理。更换证书颁发机构前先更新 CAA。", "Nothing to fix. Update CAA before you change certificate authority."),
	"caa.none":                 bi("可选：发布 issue 属性，只允许你使用的证书颁发机构。", "Optional: publish issue properties naming only the certificate authorities you use."),
	"caa.no-restrict":          bi("加上 issue 属性，列出你使用的证书颁发机构。", "Add issue properties naming the certificate authorities you use."),
	"caa.wild-only":            bi("再加上 issue 属性，限制普通证书。", "Add issue properties to restrict ordinary certificates too."),
}

package httpapi

import (
	"encoding/json"
	"fmt"

	"github.com/mailauth/mailauth/internal/lookalike"
)

// errorTextsZH is the Chinese text of every fixed message of the error
// catalogue (errors.go), keyed by the English message the API sends. The
// API answers in English only; the web page shows these texts when it
// is in Chinese. A test fails when a catalogue entry has no Chinese text.
var errorTextsZH = map[string]string{
	errNotFound.msg:        "没有这个路径",
	errMethod.msg:          "该路径不支持这种请求方法",
	errRateLimited.msg:     "你的地址请求次数超过限制，请在 Retry-After 给出的秒数之后重试",
	errMediaType.msg:       "Content-Type 必须是 application/json",
	errTooLarge.msg:        "请求正文超过 8 KiB（8192 字节）",
	errBodyRead.msg:        "无法读取请求正文",
	errBodyEncoding.msg:    "请求正文必须是 UTF-8 编码的 JSON",
	errBodySyntax.msg:      "请求正文不是有效的 JSON",
	errBodyNotObject.msg:   "请求正文必须是一个 JSON 对象",
	errBodyTrailing.msg:    "请求正文的 JSON 对象后面还有多余的数据",
	errUnknownField.msg:    "请求正文含有未知字段（允许的字段见 /openapi.json）",
	errDuplicateField.msg:  "请求正文中有字段重复出现",
	errQuerySyntax.msg:     "查询字符串格式有误",
	errUTMRepeated.msg:     "utm_source 最多只能出现一次",
	errLimiterDown.msg:     "限流服务暂时不可用",
	errSourceBudget.msg:    "你的地址或所在网络的诊断时间额度暂时用完，请在 Retry-After 给出的秒数之后重试",
	errNetworkLimited.msg:  "你所在网络的请求次数超过限制，请在 Retry-After 给出的秒数之后重试",
	errBusy.msg:            "服务繁忙：正在进行的诊断太多，请稍后重试",
	errResolverDown.msg:    "DNS 解析暂时不可用",
	errScanIncomplete.msg:  "检查未完成：大多数检查得到的 DNS 应答无法使用，因此无法评级；请稍后重试",
	errScanSlow.msg:        "检查未完成：等待该域名的服务器应答时用完了扫描时间，因此无法评级；请重新扫描",
	connBusyMessage:        "服务繁忙：连接太多，请在 Retry-After 给出的秒数之后重试",
	errInternal.msg:        "内部错误",
	errCanceledRequest.msg: "诊断完成之前请求已被取消",
}

// errorTextsJSON is errorTextsZH as JSON, for the web page.
func errorTextsJSON() (string, error) {
	b, err := json.Marshal(errorTextsZH)
	if err != nil {
		return "", fmt.Errorf("index.html: error texts: %w", err)
	}
	return string(b), nil
}

// confusablesJSON is lookalike.Confusables as JSON (letter to the Latin
// letter it looks like), for the page's look-alike warning.
func confusablesJSON() (string, error) {
	m := make(map[string]string, len(lookalike.Confusables))
	for k, v := range lookalike.Confusables {
		m[string(k)] = string(v)
	}
	b, err := json.Marshal(m)
	if err != nil {
		return "", fmt.Errorf("index.html: confusables: %w", err)
	}
	return string(b), nil
}

// Package testtext generates English, accented European and Chinese text
// for neardup's tests and benchmarks: sentences drawn from small built-in
// vocabularies with a skewed (Zipf-like) word distribution and a seeded
// generator, so runs are repeatable and no test needs external data.
//
//	doc := testtext.English(rand.New(rand.NewPCG(1, 2)), 2000) // ~2000 words
package testtext

import (
	"math"
	"math/rand/v2"
	"strings"
	"unicode/utf8"
)

var englishWords = strings.Fields(`the of and to a in is that for it as was with be by on not he this are
or his from at which but have an they you were her she there been one all we their has would when who
will more no if out so said what up its about into than them can only other new some could time these
two may then do first any my now such like our over man me even most made after also did many before
must through back years where much your way well down should because each just those people how too
little state good very make world still own see men work long get here between both life being under
never day same another know while last might us great old year off come since against go came right
used take three states himself few house use during without again place around however home small found
thought went say part once general high upon school every does got united left number course war until
always away something fact though water less public put think almost hand enough far took head yet
government system better set told nothing night end why called didn't eyes find going look asked later
knew point next city business give group toward young days let room president side social given present
several order national possible rather second face per among form important often things looked early
white case john become large big need four within felt along children saw best church ever least power
development light thing seemed family interest want members mind country area others done turned although
open god service certain kind problem began different door thus help sense means whole matter perhaps
itself york times law human line above name example action company hands local show whether five history
gave today either act feet across taken past quite anything seen having death week experience body word
half really field am car words already themselves information tell together college shall money period
held keep sure probably free seems political real behind cannot question air office making brought whose
special heard major problems ago became federal individual south able market river harbor lantern copper
velvet orchard glacier meadow compass timber quarry summit canyon prairie thunder granite falcon willow`)

var englishPunct = []string{",", ",", ";", ""}

// English returns about n words of English-like prose: capitalized
// sentences of 6 to 24 words, with commas, ending in periods, in
// paragraphs.
func English(rng *rand.Rand, n int) string { return prose(rng, englishWords, n) }

// Accented returns about n words of prose as English does, in a
// vocabulary of French, German, Spanish, Czech and Polish words, most of
// them with accents or other marks.
func Accented(rng *rand.Rand, n int) string { return prose(rng, accentedWords, n) }

// prose returns about n words drawn from words (Zipf-like): capitalized
// sentences of 6 to 24 words, with commas, ending in periods, in
// paragraphs.
func prose(rng *rand.Rand, words []string, n int) string {
	var sb strings.Builder
	sb.Grow(n * 6)
	written := 0
	for written < n {
		k := 6 + rng.IntN(19)
		for i := range k {
			w := words[zipf(rng, len(words))]
			if i == 0 {
				r, size := utf8.DecodeRuneInString(w)
				sb.WriteString(strings.ToUpper(string(r)))
				sb.WriteString(w[size:])
			} else {
				sb.WriteString(w)
			}
			switch {
			case i == k-1:
				sb.WriteString(".")
			case rng.IntN(9) == 0:
				sb.WriteString(englishPunct[rng.IntN(len(englishPunct))])
			}
			written++
			if i < k-1 {
				sb.WriteByte(' ')
			}
		}
		if rng.IntN(6) == 0 {
			sb.WriteString("\n\n")
		} else {
			sb.WriteByte(' ')
		}
	}
	return sb.String()
}

var accentedWords = strings.Fields(`à de la et le les des été très déjà où même après être café élève année
général théâtre fenêtre forêt hôpital château côté début fermé français garçon leçon ça noël naïf œuvre
für über schön groß müssen können während Straße Mädchen Bäume Häuser grün früh spät König Brücke Löwe
mañana niño año corazón canción también jamás después rápido fácil música árbol está aquí allí señor
příliš žluťoučký kůň úpěl ďábelské ódy čeština řeka škola šťastný město dítě učitel náměstí okno dům
zażółć gęślą jaźń łódź żółw pieśń śpiewać wiosną ćma dąb jeż mąka księżyc gwiazda źródło słońce niebo
dobrze kraj wieś miasto ulica szkoła brat siostra ojciec matka ziemia woda ogień wiatr`)

// Russian returns about n words of prose as English does, in a
// vocabulary of common Russian words, some of them with ё.
func Russian(rng *rand.Rand, n int) string { return prose(rng, russianWords, n) }

var russianWords = strings.Fields(`и в не на я быть он с что а по это она этот к но они мы как из у который
то за свой что весь год от так о для ты же все тот мочь вы человек такой его сказать только или ещё
бы себя один как уже до время если сам когда другой вот говорить наш мой знать стать при чтобы дело
жизнь кто первый очень два день её новый рука даже во со раз где там под можно ну какой после их
работа без самый потом надо хотеть ли слово идти большой должен место иметь ничто всё ёлка ёж
объём лёд мёд пёс тётя учёба зелёный тяжёлый пришёл нашёл берёза вперёд далёкий приём зачёт`)

var chineseWords = strings.Fields(`的 了 在 是 我们 他们 这个 一个 中国 发展 经济 社会 问题 国家 企业 市场 政府
工作 技术 公司 人民 城市 历史 文化 教育 学生 老师 学校 研究 科学 数据 系统 网络 信息 服务 管理 产品 质量
价格 投资 银行 金融 增长 提高 建设 改革 开放 合作 国际 世界 环境 保护 能源 交通 医疗 健康 生活 家庭 孩子
朋友 时间 今天 明天 去年 已经 正在 可以 需要 应该 通过 进行 表示 认为 指出 提出 要求 支持 推动 实现 加强
重要 主要 新的 更多 不同 相关 目前 同时 因此 但是 而且 如果 虽然 由于 为了 关于 根据 以及 其中 作为 记者
报道 消息 新闻 平台 用户 手机 软件 电脑 汽车 房子 天气 春天 山水 河流 森林 农民 工人 医生 专家 领导 会议
计划 项目 方案 政策 法律 规定 标准 安全 风险 机会 成功 失败 变化 影响 结果 原因 方法 过程 水平 能力 条件
北京 上海 广州 深圳 长江 黄河 东方 西方 南方 北方 大学 医院 工厂 商店 公园 机场 火车 飞机 电影 音乐 书籍
语言 文字 故事 传统 节日 美食 茶叶 丝绸 瓷器 长城 熊猫 月亮 太阳 星星 大海 草原 沙漠 雪山 湖泊 花园`)

var chinesePunct = []string{"，", "，", "、", "；"}

// Chinese returns about n characters of Chinese-like prose: sentences of 4
// to 16 words with commas, ending in 。, in paragraphs.
func Chinese(rng *rand.Rand, n int) string {
	var sb strings.Builder
	sb.Grow(n * 3)
	chars := 0
	for chars < n {
		k := 4 + rng.IntN(13)
		for i := range k {
			w := chineseWords[zipf(rng, len(chineseWords))]
			sb.WriteString(w)
			chars += utf8.RuneCountInString(w)
			switch {
			case i == k-1:
				sb.WriteString("。")
			case rng.IntN(6) == 0:
				sb.WriteString(chinesePunct[rng.IntN(len(chinesePunct))])
			}
		}
		if rng.IntN(6) == 0 {
			sb.WriteString("\n")
		}
	}
	return sb.String()
}

// zipf returns an index in [0, n) with probability falling off roughly as
// 1/(i+1), by inverting the continuous approximation.
func zipf(rng *rand.Rand, n int) int {
	i := int(math.Exp(rng.Float64()*math.Log(float64(n)+1))) - 1
	return min(max(i, 0), n-1)
}

// Article returns about n words of English-like prose in which about one
// word in two is a content word made up from syllables (names, topic
// terms), drawn from a vocabulary of about 200,000. The common words of
// English return to the same few hundred in every text, but the content
// words do not, so unrelated articles lie about as far apart under the
// default fingerprint as unrelated real texts do (texts from English alone,
// whose whole vocabulary is a few hundred words, all look alike to a
// fingerprint). Measured on random pairs, median and 1st percentile of the
// distance: articles of 140 words 26 and 17 bits, 1,000-character passages
// of the Brown corpus and SpamAssassin mails 27 and 17; articles of 50 words
// 28 and 18, Debian fortunes of 60 to 400 characters 30 and 20. With one
// content word in three the articles were 23 and 15, and 26 and 16.
func Article(rng *rand.Rand, n int) string {
	words := strings.Fields(English(rng, n))
	var sb strings.Builder
	sb.Grow(n * 7)
	for i, w := range words {
		if i > 0 {
			sb.WriteByte(' ')
		}
		if rng.IntN(2) == 0 {
			w = madeUpWord(rng) + trailingPunct(w)
		}
		sb.WriteString(w)
	}
	return sb.String()
}

var syllables = strings.Fields(`ka lo mi ren to sa vi de pul an so ter gu ni bar el mor tan
ri vo ka pe lin dus ar om qua zel fi hol nek sur`)

// madeUpWord returns a word of two to four syllables.
func madeUpWord(rng *rand.Rand) string {
	var b strings.Builder
	for range 2 + rng.IntN(3) {
		b.WriteString(syllables[rng.IntN(len(syllables))])
	}
	return b.String()
}

// trailingPunct returns the punctuation at the end of w, if any.
func trailingPunct(w string) string {
	i := len(w)
	for i > 0 && strings.ContainsRune(".,;", rune(w[i-1])) {
		i--
	}
	return w[i:]
}

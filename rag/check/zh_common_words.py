"""Ordinary words that jieba's dictionary tags as names.

jieba gives each dictionary word one part-of-speech tag, and many everyday words carry a
name's tag: 福利 ("welfare") and 日志 ("log") are places (``ns``), 普通 ("ordinary"), 本科生
("undergraduate") and 聊天 ("chat") other proper nouns (``nz``), 交易所 ("exchange") an
organisation (``nt``). An answer that paraphrases its source with one of them ("普通员工" for
the source's "一般员工") was sent to review for naming a place or organisation the source
lacks. These are the ordinary words among the 300 most frequent dictionary words of each of
those tags and the 150 most frequent people (``nr``) of three characters or more (青少年,
老太太), read one by one, and those that tag ordinary words in the cmrc2018-trial corpus
(巴士, 入口, 家族, 磷酸; plants such as 西番莲). Languages (英语, 法语), peoples,
religions, events, brands and real places stay names: writing the wrong one is an error a
reviewer must see.
"""

from __future__ import annotations

from rag.reading import words

ZH_COMMON_WORDS = frozenset(
    words(
        # tagged ns (places)
        """
        城市 东西 南北 东西南北 新旧 中西 平原 外国 爱国 英雄 朝廷 太阳 哥哥 阿哥 海洋 湖泊
        大桥 高原
        上市 建国 开国 美丽 山区 江湖 大街 王国 共和国 城镇 庆典 深度 长度 山脉 回国 治安 大国
        新鲜 古城 海峡 河口 冰川 山水 长大 普及 商城 古典 阴阳 江山 高山 大海 山坡 河谷 上马
        太平 福利 日志 云集 青春 山河 神圣 新建 内河 莫非 桥头堡 中路 南路 大都 京城 自治州
        自治县 长寿 亚科 巴士 加盟 入口 山城 复国
        """
        # tagged nz (other proper nouns)
        """
        百科 和平 普通 论文 精华 汇报 通讯 正文 中毒 金银 大战 抗议 奇特 恒星 天文 君王 沙发
        美味 珠宝 宝库 诚信 天大 力争 护卫 抗生素 抗争 二氧化碳 氨基酸 聊天 天鹅 新纪元 文科
        大奖 宝座 威信 正宗 文教 美貌 野战 羟基 革命家 保安 新世纪 大礼 本科生 曙光 源泉 洗礼
        第二产业 第三产业 曝光 摩托车 五彩 抗衡 兴盛 星星 海战 飞翔 端正 天明 佛塔 闻讯 和谈
        国宝 鲤鱼 神通 双打 农田水利 新闻网 登记日 乾坤 波浪 防腐剂 新路 联谊 竹林 革命战争
        珍宝 世界观 革命党 美观 恐龙 卷宗 藏书 英雄好汉 管教 神经元 福星 大厨 新字 抗辐射
        喜讯 和平共处 民族自治 反革命 中轴线 卡通 家族 磷酸 磷酸盐 亚硫酸盐 氟化
        """
        # tagged nr (people)
        """
        老太太 小姑娘 青少年 维生素 黄金周 望远镜 花岗岩 汉白玉 杜鹃花 贡献者 立法权 古建筑
        皇太后 大展宏图 封建王朝 博大精深 须弥座 布政使 西向东 麻黄素 天门冬 西番莲 夜来香
        艾纳香
        """
        # tagged nt (organisations)
        """
        国际化 社会科学 交易所 音乐会 天文学 伦理学 统计学 施工队 信息中心 加工厂 卫生院 联合会
        高级中学 文理学院 理工学院 商学院 音乐学院 美术馆 音乐厅 文工团 联合体 四合院 中医药
        黑社会 海洋生物 古典文学 中文系 公安局 卫生局 安全局 国家机关 党组织 党政机关 人民军队
        超级大国 大中学校 陆战队 海军陆战队 通讯社 国家队 交汇处
        """
    )
)
"""Words that are never names here, whatever jieba's tag."""

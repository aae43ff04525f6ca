<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN" sourcelanguage="en">
<context>
    <name>AboutDialog</name>
    <message>
        <source>About TorchRig</source>
        <translation>关于 TorchRig</translation>
    </message>
    <message>
        <source>&lt;h2&gt;TorchRig {0}&lt;/h2&gt;&lt;p&gt;PyTorch hardware assistant: plan, build, check and benchmark machines for PyTorch.&lt;/p&gt;</source>
        <translation>&lt;h2&gt;TorchRig {0}&lt;/h2&gt;&lt;p&gt;PyTorch 硬件配置助手：为 PyTorch 规划、配置、检查机器并测试其性能。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>Copy</source>
        <translation>复制</translation>
    </message>
    <message>
        <source>Copy these versions for a bug report</source>
        <translation>复制以上版本信息，用于提交问题报告</translation>
    </message>
    <message>
        <source>not installed</source>
        <translation>未安装</translation>
    </message>
    <message>
        <source>TorchRig</source>
        <translation>TorchRig</translation>
    </message>
    <message>
        <source>Python</source>
        <translation>Python</translation>
    </message>
    <message>
        <source>torch</source>
        <translation>torch</translation>
    </message>
    <message>
        <source>CUDA (torch build)</source>
        <translation>CUDA（torch 编译版本）</translation>
    </message>
    <message>
        <source>NVIDIA driver</source>
        <translation>NVIDIA 驱动</translation>
    </message>
    <message>
        <source>CUDA (driver supports)</source>
        <translation>CUDA（驱动支持的版本）</translation>
    </message>
    <message>
        <source>Qt</source>
        <translation>Qt</translation>
    </message>
    <message>
        <source>PySide6</source>
        <translation>PySide6</translation>
    </message>
    <message>
        <source>Operating system</source>
        <translation>操作系统</translation>
    </message>
    <message>
        <source>Data folder</source>
        <translation>数据文件夹</translation>
    </message>
    <message>
        <source>Settings file</source>
        <translation>设置文件</translation>
    </message>
    <message>
        <source>torch not installed</source>
        <translation>未安装 torch</translation>
    </message>
    <message>
        <source>none (CPU or ROCm build)</source>
        <translation>无（CPU 或 ROCm 版本）</translation>
    </message>
    <message>
        <source>torch not loaded (it loads for a benchmark or &quot;Ask torch too&quot;)</source>
        <translation>torch 尚未加载（运行性能测试或点击“同时询问 torch”时才加载）</translation>
    </message>
    <message>
        <source>not detected yet</source>
        <translation>尚未检测</translation>
    </message>
    <message>
        <source>unknown ({0})</source>
        <translation>未知（{0}）</translation>
    </message>
    <message>
        <source>unknown</source>
        <translation>未知</translation>
    </message>
</context>
<context>
    <name>BenchPage</name>
    <message>
        <source>&lt;h2&gt;Benchmark&lt;/h2&gt;</source>
        <translation>&lt;h2&gt;性能测试&lt;/h2&gt;</translation>
    </message>
    <message>
        <source>Preset</source>
        <translation>预设</translation>
    </message>
    <message>
        <source>Quick (about 30 s)</source>
        <translation>快速（约 30 秒）</translation>
    </message>
    <message>
        <source>Full (under 3 min)</source>
        <translation>完整（3 分钟以内）</translation>
    </message>
    <message>
        <source>Device</source>
        <translation>设备</translation>
    </message>
    <message>
        <source>CPU</source>
        <translation>CPU</translation>
    </message>
    <message>
        <source>The device the torch benchmarks run on; GPUs appear once detection has found them</source>
        <translation>运行 torch 测试的设备；检测到 GPU 后会出现在列表中</translation>
    </message>
    <message>
        <source>Run</source>
        <translation>运行</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Smoke test (a few seconds)</source>
        <translation>冒烟测试（几秒钟）</translation>
    </message>
    <message>
        <source>Quick: short runs of every benchmark. Full: longer runs and more sizes, steadier figures. Smoke test: tiny sizes, only proves every benchmark works</source>
        <translation>快速：每项基准短时运行。完整：运行更久、尺寸更多，数据更稳定。冒烟测试：极小尺寸，仅验证每项基准都能运行</translation>
    </message>
    <message>
        <source>Run the suite in a separate process (loads torch there); the window stays usable even if it crashes</source>
        <translation>在独立进程中运行测试套件（在其中加载 torch）；即使该进程崩溃，窗口仍可正常使用</translation>
    </message>
    <message>
        <source>Stop after the current step; what was measured is kept</source>
        <translation>在当前步骤结束后停止，已测得的结果会保留</translation>
    </message>
    <message>
        <source>Dataset folder (storage test)</source>
        <translation>数据集文件夹（存储测试）</translation>
    </message>
    <message>
        <source>default: the system temp folder</source>
        <translation>默认：系统临时文件夹</translation>
    </message>
    <message>
        <source>The storage test writes and reads files here: pick a folder on the disk that will hold the dataset</source>
        <translation>存储测试会在此读写文件：请选择将来存放数据集的磁盘上的文件夹</translation>
    </message>
    <message>
        <source>Browse…</source>
        <translation>浏览…</translation>
    </message>
    <message>
        <source>Ready.</source>
        <translation>就绪。</translation>
    </message>
    <message>
        <source>Measurement</source>
        <translation>测量项</translation>
    </message>
    <message>
        <source>Value</source>
        <translation>数值</translation>
    </message>
    <message>
        <source>Reference</source>
        <translation>参考值</translation>
    </message>
    <message>
        <source>%</source>
        <translation>%</translation>
    </message>
    <message>
        <source>The spec peak of this device from the catalog (or the seed&apos;s figure), when known</source>
        <translation>目录中该设备的规格峰值（或种子文档给出的数值），如已知</translation>
    </message>
    <message>
        <source>Measured value as a share of the reference</source>
        <translation>实测值占参考值的百分比</translation>
    </message>
    <message>
        <source>Log</source>
        <translation>日志</translation>
    </message>
    <message>
        <source>Findings</source>
        <translation>检查结果</translation>
    </message>
    <message>
        <source>Earlier runs on this machine:</source>
        <translation>本机以往的测试：</translation>
    </message>
    <message>
        <source>History</source>
        <translation>历史记录</translation>
    </message>
    <message>
        <source>Cluster</source>
        <translation>集群</translation>
    </message>
    <message>
        <source>writes {0} there, removed afterwards</source>
        <translation>将在此写入 {0}，测试后删除</translation>
    </message>
    <message>
        <source>Folder on the dataset&apos;s disk</source>
        <translation>数据集所在磁盘上的文件夹</translation>
    </message>
    <message>
        <source>Starting (loading torch in the benchmark process)…</source>
        <translation>正在启动（在基准测试进程中加载 torch）…</translation>
    </message>
    <message>
        <source>Not complete: {0}</source>
        <translation>未完成：{0}</translation>
    </message>
    <message>
        <source>could not save the report to the history: {0}</source>
        <translation>无法将报告保存到历史记录：{0}</translation>
    </message>
    <message>
        <source>Cancelling…</source>
        <translation>正在取消…</translation>
    </message>
    <message>
        <source>No problems found in the measurements.</source>
        <translation>测量结果中未发现问题。</translation>
    </message>
    <message>
        <source>Cancelled: kept what was measured.</source>
        <translation>已取消：已测得的结果已保留。</translation>
    </message>
    <message>
        <source>Done.</source>
        <translation>完成。</translation>
    </message>
    <message>
        <source>{0} ({1})</source>
        <translation>{0}（{1}）</translation>
    </message>
    <message>
        <source>The benchmark stopped: {0}</source>
        <translation>性能测试已停止：{0}</translation>
    </message>
    <message>
        <source>Choose an earlier run…</source>
        <translation>选择以往的测试…</translation>
    </message>
</context>
<context>
    <name>BreakdownChart</name>
    <message>
        <source>{0} cores</source>
        <translation>{0} 核</translation>
    </message>
    <message>
        <source>1 core</source>
        <translation>1 核</translation>
    </message>
    <message>
        <source>No plan yet</source>
        <translation>尚无规划</translation>
    </message>
</context>
<context>
    <name>BuildPage</name>
    <message>
        <source>Category</source>
        <translation>类别</translation>
    </message>
    <message>
        <source>Item</source>
        <translation>品名</translation>
    </message>
    <message>
        <source>Key spec</source>
        <translation>关键规格</translation>
    </message>
    <message>
        <source>Qty</source>
        <translation>数量</translation>
    </message>
    <message>
        <source>Unit price</source>
        <translation>单价</translation>
    </message>
    <message>
        <source>Line total</source>
        <translation>金额</translation>
    </message>
    <message>
        <source>Price origin</source>
        <translation>价格来源</translation>
    </message>
    <message>
        <source>ok</source>
        <translation>正常</translation>
    </message>
    <message>
        <source>price needed</source>
        <translation>需要价格</translation>
    </message>
    <message>
        <source>exchange rate needed</source>
        <translation>需要汇率</translation>
    </message>
    <message>
        <source>launch MSRP</source>
        <translation>首发价</translation>
    </message>
    <message>
        <source>retail</source>
        <translation>零售价</translation>
    </message>
    <message>
        <source>estimate</source>
        <translation>估计价</translation>
    </message>
    <message>
        <source>&lt;h2&gt;Build&lt;/h2&gt;</source>
        <translation>&lt;h2&gt;配置单&lt;/h2&gt;</translation>
    </message>
    <message>
        <source>New</source>
        <translation>新建</translation>
    </message>
    <message>
        <source>Start an empty build (asks about unsaved changes first)</source>
        <translation>新建空白配置单（如有未保存的修改会先询问）</translation>
    </message>
    <message>
        <source>Open…</source>
        <translation>打开…</translation>
    </message>
    <message>
        <source>Open a build file (.json)</source>
        <translation>打开配置单文件（.json）</translation>
    </message>
    <message>
        <source>Save</source>
        <translation>保存</translation>
    </message>
    <message>
        <source>Save the build to its file</source>
        <translation>将配置单保存到其文件</translation>
    </message>
    <message>
        <source>Save as…</source>
        <translation>另存为…</translation>
    </message>
    <message>
        <source>Save the build to a new file</source>
        <translation>将配置单保存为新文件</translation>
    </message>
    <message>
        <source>Import prices…</source>
        <translation>导入价格…</translation>
    </message>
    <message>
        <source>Apply a CSV price list (part id, price, currency, date, source) to the build&apos;s lines</source>
        <translation>将 CSV 价格表（配件 ID、价格、币种、日期、来源）应用到配置单各行</translation>
    </message>
    <message>
        <source>Compare…</source>
        <translation>对比…</translation>
    </message>
    <message>
        <source>Compare this build with up to two build files side by side</source>
        <translation>将本配置单与最多两个配置单文件并排对比</translation>
    </message>
    <message>
        <source>Build files opened or saved recently</source>
        <translation>最近打开或保存的配置单文件</translation>
    </message>
    <message>
        <source>The quote details hold a value the build file cannot hold, so the build was not saved. Correct the marked field and save again:
{0}</source>
        <translation>报价信息中有配置单文件无法保存的值，因此未保存配置单。请改正标出的字段后再保存：
{0}</translation>
    </message>
    <message>
        <source>Replace part…</source>
        <translation>替换部件…</translation>
    </message>
    <message>
        <source>Pick another part for the selected line from the parts that fit the rest of the build</source>
        <translation>为选中的行从与其余配置兼容的部件中另选一个</translation>
    </message>
    <message>
        <source>Select one catalog part&apos;s line to replace.</source>
        <translation>请选中一行目录部件再替换。</translation>
    </message>
    <message>
        <source>Replace part</source>
        <translation>替换部件</translation>
    </message>
    <message>
        <source>Discount</source>
        <translation>折扣</translation>
    </message>
    <message>
        <source>Double-click Qty or Unit price to edit; hover a price origin to see its source</source>
        <translation>双击“数量”或“单价”可编辑；鼠标悬停在价格来源上可查看出处</translation>
    </message>
    <message>
        <source>Remove line</source>
        <translation>删除行</translation>
    </message>
    <message>
        <source>Add custom line…</source>
        <translation>添加自定义行…</translation>
    </message>
    <message>
        <source>Copy as</source>
        <translation>复制为</translation>
    </message>
    <message>
        <source>Copy the priced parts list for a forum post, a chat or a spreadsheet</source>
        <translation>复制带价格的配件清单，用于论坛帖子、聊天或电子表格</translation>
    </message>
    <message>
        <source>Markdown (forums, GitHub)</source>
        <translation>Markdown（论坛、GitHub）</translation>
    </message>
    <message>
        <source>BBCode (forums)</source>
        <translation>BBCode（论坛）</translation>
    </message>
    <message>
        <source>Plain text (chats)</source>
        <translation>纯文本（聊天）</translation>
    </message>
    <message>
        <source>CSV (spreadsheets)</source>
        <translation>CSV（电子表格）</translation>
    </message>
    <message>
        <source>Edit Qty and Unit price in the table; clear a price to use the catalog&apos;s.</source>
        <translation>可在表格中编辑数量和单价；清空价格即使用目录价格。</translation>
    </message>
    <message>
        <source>Add part</source>
        <translation>添加配件</translation>
    </message>
    <message>
        <source>A custom line needs a description.</source>
        <translation>自定义行需要填写说明。</translation>
    </message>
    <message>
        <source>Add custom line</source>
        <translation>添加自定义行</translation>
    </message>
    <message>
        <source>Copied 1 line.</source>
        <translation>已复制 1 行。</translation>
    </message>
    <message>
        <source>Copied {0} lines.</source>
        <translation>已复制 {0} 行。</translation>
    </message>
    <message>
        <source>Open what could be read (1 line)?</source>
        <translation>要打开其中可读取的部分（1 行）吗？</translation>
    </message>
    <message>
        <source>Open what could be read ({0} lines)?</source>
        <translation>要打开其中可读取的部分（{0} 行）吗？</translation>
    </message>
    <message>
        <source>Incomplete: 1 line needs a price or an exchange rate.</source>
        <translation>不完整：有 1 行需要价格或汇率。</translation>
    </message>
    <message>
        <source>Incomplete: {0} lines need a price or an exchange rate.</source>
        <translation>不完整：有 {0} 行需要价格或汇率。</translation>
    </message>
    <message>
        <source>Enter the exchange rate (CNY per USD) and its date above: 1 line is priced in {0}.</source>
        <translation>请在上方填写汇率（人民币/美元）及其日期：有 1 行以 {0} 计价。</translation>
    </message>
    <message>
        <source>Enter the exchange rate (CNY per USD) and its date above: {0} lines are priced in {1}.</source>
        <translation>请在上方填写汇率（人民币/美元）及其日期：有 {0} 行以 {1} 计价。</translation>
    </message>
    <message>
        <source>Applied 1 price from {1}.</source>
        <translation>已从 {1} 应用 1 个价格。</translation>
    </message>
    <message>
        <source>Applied {0} prices from {1}.</source>
        <translation>已从 {1} 应用 {0} 个价格。</translation>
    </message>
    <message>
        <source>Copied the parts list ({0}).</source>
        <translation>已复制配件清单（{0}）。</translation>
    </message>
    <message>
        <source>Remove lines</source>
        <translation>删除行</translation>
    </message>
    <message>
        <source>Quantity must be a whole number from 1 to 10,000.</source>
        <translation>数量必须是 1 到 10,000 之间的整数。</translation>
    </message>
    <message>
        <source>edited in TorchRig</source>
        <translation>在 TorchRig 中修改</translation>
    </message>
    <message>
        <source>Edit quantity</source>
        <translation>修改数量</translation>
    </message>
    <message>
        <source>Edit price</source>
        <translation>修改价格</translation>
    </message>
    <message>
        <source>Untitled build</source>
        <translation>未命名配置单</translation>
    </message>
    <message>
        <source>Edit quote details</source>
        <translation>修改报价信息</translation>
    </message>
    <message>
        <source>TorchRig did not close cleanly, and the copy of the unsaved build could not be read:
{0}

It was kept as {1}.</source>
        <translation>TorchRig 上次未正常关闭，且未保存配置单的副本无法读取：
{0}

该副本已保留为 {1}。</translation>
    </message>
    <message>
        <source>Recover unsaved build</source>
        <translation>恢复未保存的配置单</translation>
    </message>
    <message>
        <source>Of the damaged copy kept as {0}:</source>
        <translation>保存在 {0} 的损坏副本：</translation>
    </message>
    <message>
        <source>TorchRig did not close cleanly. Recover the unsaved build “{0}”?</source>
        <translation>TorchRig 上次未正常关闭。要恢复未保存的配置单“{0}”吗？</translation>
    </message>
    <message>
        <source>• {0}
  kept as {1}</source>
        <translation>• {0}
  已保存为 {1}</translation>
    </message>
    <message>
        <source>TorchRig did not close cleanly, and {0} copies of unsaved builds could not be read. Each was kept:</source>
        <translation>TorchRig 上次未正常关闭，有 {0} 份未保存配置单的副本无法读取。每份都已保留：</translation>
    </message>
    <message>
        <source>No compatibility problems found.</source>
        <translation>未发现兼容性问题。</translation>
    </message>
    <message>
        <source>not saved</source>
        <translation>未保存</translation>
    </message>
    <message>
        <source>(x{0} nodes)</source>
        <translation>（×{0} 个节点）</translation>
    </message>
    <message>
        <source>custom line</source>
        <translation>自定义行</translation>
    </message>
    <message>
        <source>Enter a unit price for this line</source>
        <translation>请为此行输入单价</translation>
    </message>
    <message>
        <source>your price</source>
        <translation>您的价格</translation>
    </message>
    <message>
        <source>catalog: {0}</source>
        <translation>目录：{0}</translation>
    </message>
    <message>
        <source>Subtotal</source>
        <translation>小计</translation>
    </message>
    <message>
        <source>Tax ({0}%)</source>
        <translation>税（{0}%）</translation>
    </message>
    <message>
        <source>Total</source>
        <translation>合计</translation>
    </message>
    <message>
        <source>Unsaved build</source>
        <translation>配置单未保存</translation>
    </message>
    <message>
        <source>The build “{0}” has unsaved changes. Save them?</source>
        <translation>配置单“{0}”有未保存的修改。要保存吗？</translation>
    </message>
    <message>
        <source>New build</source>
        <translation>新配置单</translation>
    </message>
    <message>
        <source>Open build</source>
        <translation>打开配置单</translation>
    </message>
    <message>
        <source>Cannot open build</source>
        <translation>无法打开配置单</translation>
    </message>
    <message>
        <source>Opened {0}</source>
        <translation>已打开 {0}</translation>
    </message>
    <message>
        <source>Save build</source>
        <translation>保存配置单</translation>
    </message>
    <message>
        <source>TorchRig build (*.json)</source>
        <translation>TorchRig 配置单 (*.json)</translation>
    </message>
    <message>
        <source>TorchRig build or PDF sheet (*.json *.pdf)</source>
        <translation>TorchRig 配置单或 PDF 配置表 (*.json *.pdf)</translation>
    </message>
    <message>
        <source>TorchRig PDF sheet (*.pdf)</source>
        <translation>TorchRig PDF 配置表 (*.pdf)</translation>
    </message>
    <message>
        <source>Cannot save build</source>
        <translation>无法保存配置单</translation>
    </message>
    <message>
        <source>Saved {0}</source>
        <translation>已保存 {0}</translation>
    </message>
    <message>
        <source>Import price list</source>
        <translation>导入价格表</translation>
    </message>
    <message>
        <source>CSV price list (*.csv)</source>
        <translation>CSV 价格表 (*.csv)</translation>
    </message>
    <message>
        <source>Cannot import price list</source>
        <translation>无法导入价格表</translation>
    </message>
    <message>
        <source>Import prices</source>
        <translation>导入价格</translation>
    </message>
    <message>
        <source>Price list</source>
        <translation>价格表</translation>
    </message>
    <message>
        <source>Recent files…</source>
        <translation>最近的文件…</translation>
    </message>
    <message>
        <source>Build</source>
        <translation>配置单</translation>
    </message>
</context>
<context>
    <name>ClusterPanel</name>
    <message>
        <source>Machines taking part (torchrun --nnodes)</source>
        <translation>参与的机器台数（torchrun --nnodes）</translation>
    </message>
    <message>
        <source>Processes per machine, one per GPU (torchrun --nproc-per-node)</source>
        <translation>每台机器的进程数，每个 GPU 一个（torchrun --nproc-per-node）</translation>
    </message>
    <message>
        <source>first node&apos;s address (several nodes)</source>
        <translation>第一个节点的地址（多节点时）</translation>
    </message>
    <message>
        <source>Host name or IP of the first node, reachable from every node (torchrun --rdzv-endpoint)</source>
        <translation>第一个节点的主机名或 IP，需所有节点都能访问（torchrun --rdzv-endpoint）</translation>
    </message>
    <message>
        <source>A free TCP port on the first node</source>
        <translation>第一个节点上一个空闲的 TCP 端口</translation>
    </message>
    <message>
        <source>nccl for NVIDIA GPUs; gloo for CPUs (or to check the setup without GPUs)</source>
        <translation>NVIDIA GPU 用 nccl；CPU 用 gloo（也可用于在没有 GPU 时检查环境）</translation>
    </message>
    <message>
        <source>Nodes</source>
        <translation>节点数</translation>
    </message>
    <message>
        <source>GPUs per node</source>
        <translation>每节点 GPU 数</translation>
    </message>
    <message>
        <source>Rendezvous host</source>
        <translation>汇合主机</translation>
    </message>
    <message>
        <source>Port</source>
        <translation>端口</translation>
    </message>
    <message>
        <source>Backend</source>
        <translation>通信后端</translation>
    </message>
    <message>
        <source>Run this on every node of your cluster:</source>
        <translation>在集群的每个节点上运行：</translation>
    </message>
    <message>
        <source>Copy command</source>
        <translation>复制命令</translation>
    </message>
    <message>
        <source>Measure here (2 CPU processes)</source>
        <translation>在本机测量（2 个 CPU 进程）</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Attach report…</source>
        <translation>附加报告…</translation>
    </message>
    <message>
        <source>Network exposure: &quot;Measure here&quot; listens on 127.0.0.1 only and nothing outside this machine can connect. On a cluster, the first node&apos;s rendezvous port above and the NCCL/gloo ports of every node accept connections on the interface you choose (NCCL_SOCKET_IFNAME / GLOO_SOCKET_IFNAME; default: any) for the length of the run - run it on a trusted network or behind a firewall.</source>
        <translation>网络暴露：“在本机测量”只监听 127.0.0.1，本机以外无法连接。在集群上，运行期间第一个节点上方的汇合端口以及每个节点的 NCCL/gloo 端口会在您选择的网卡上接受连接（NCCL_SOCKET_IFNAME / GLOO_SOCKET_IFNAME；默认：任意网卡）——请在可信网络中或防火墙之后运行。</translation>
    </message>
    <message>
        <source>No collective report attached: scaling uses catalog link rates.</source>
        <translation>未附加集合通信报告：扩展性按目录中的链路速率估算。</translation>
    </message>
    <message>
        <source>Measure here ({0} GPUs, NCCL)</source>
        <translation>在本机测量（{0} 块 GPU，NCCL）</translation>
    </message>
    <message>
        <source>{0}, {1} ranks on 1 node</source>
        <translation>{0}，1 个节点上共 {1} 个进程</translation>
    </message>
    <message>
        <source>{0}, {1} ranks on {2} nodes</source>
        <translation>{0}，{2} 个节点上共 {1} 个进程</translation>
    </message>
    <message>
        <source>{0}: busbw {1} at {2} B, peak {3}, latency {4}</source>
        <translation>{0}：{2} B 时 busbw 为 {1}，峰值 {3}，延迟 {4}</translation>
    </message>
    <message>
        <source>busbw = algbw x 2(n-1)/n (all-reduce) or x (n-1)/n, as nccl-tests counts it</source>
        <translation>busbw = algbw × 2(n-1)/n（all-reduce）或 × (n-1)/n，与 nccl-tests 的算法一致</translation>
    </message>
    <message>
        <source>Collective report</source>
        <translation>集合通信报告</translation>
    </message>
    <message>
        <source>Collective report (*.json)</source>
        <translation>集合通信报告 (*.json)</translation>
    </message>
    <message>
        <source>Measuring…</source>
        <translation>正在测量…</translation>
    </message>
</context>
<context>
    <name>CompareDialog</name>
    <message>
        <source>Compare builds</source>
        <translation>对比配置单</translation>
    </message>
    <message>
        <source>Add build file…</source>
        <translation>添加配置单文件…</translation>
    </message>
    <message>
        <source>Add build</source>
        <translation>添加配置单</translation>
    </message>
    <message>
        <source>TorchRig build or PDF sheet (*.json *.pdf)</source>
        <translation>TorchRig 配置单或 PDF 配置表 (*.json *.pdf)</translation>
    </message>
    <message>
        <source>Compare</source>
        <translation>对比</translation>
    </message>
    <message>
        <source>Up to three builds can be compared.</source>
        <translation>最多可对比三个配置单。</translation>
    </message>
    <message>
        <source>Cannot open build</source>
        <translation>无法打开配置单</translation>
    </message>
</context>
<context>
    <name>CrashDialog</name>
    <message>
        <source>TorchRig hit an internal error; your open work is unchanged and the app keeps running.</source>
        <translation>TorchRig 发生内部错误；您打开的内容没有改变，程序会继续运行。</translation>
    </message>
    <message>
        <source>Logged to {0}</source>
        <translation>已记录到 {0}</translation>
    </message>
    <message>
        <source>Copy details</source>
        <translation>复制详细信息</translation>
    </message>
</context>
<context>
    <name>FindingsView</name>
    <message>
        <source>No findings.</source>
        <translation>没有发现问题。</translation>
    </message>
    <message>
        <source>Rule: {0}</source>
        <translation>规则：{0}</translation>
    </message>
    <message>
        <source>Source: {0}</source>
        <translation>依据：{0}</translation>
    </message>
    <message>
        <source>Severity: {0}</source>
        <translation>严重程度：{0}</translation>
    </message>
    <message>
        <source>Numbers it judged (SI units):</source>
        <translation>判定所依据的数值（国际单位制）：</translation>
    </message>
</context>
<context>
    <name>MachinePage</name>
    <message>
        <source>&lt;h2&gt;This machine&lt;/h2&gt;</source>
        <translation>&lt;h2&gt;本机&lt;/h2&gt;</translation>
    </message>
    <message>
        <source>Detecting…</source>
        <translation>正在检测…</translation>
    </message>
    <message>
        <source>Refresh</source>
        <translation>刷新</translation>
    </message>
    <message>
        <source>Ask torch too</source>
        <translation>同时询问 torch</translation>
    </message>
    <message>
        <source>Also query torch for CUDA/ROCm/MPS details (loads torch: takes a few seconds)</source>
        <translation>同时向 torch 查询 CUDA/ROCm/MPS 详情（需加载 torch，耗时几秒）</translation>
    </message>
    <message>
        <source>Copy as text</source>
        <translation>复制为文本</translation>
    </message>
    <message>
        <source>Copy as JSON</source>
        <translation>复制为 JSON</translation>
    </message>
    <message>
        <source>Detecting… (loading torch)</source>
        <translation>正在检测…（加载 torch）</translation>
    </message>
    <message>
        <source>Detected in {0:.0f} ms</source>
        <translation>检测用时 {0:.0f} 毫秒</translation>
    </message>
    <message>
        <source> · 1 probe failed: {1}</source>
        <translation> · 1 项探测失败：{1}</translation>
    </message>
    <message>
        <source> · {0} probes failed: {1}</source>
        <translation> · {0} 项探测失败：{1}</translation>
    </message>
    <message>
        <source>Detection failed: {0}</source>
        <translation>检测失败：{0}</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <source>Settings could not be read, defaults are used: {0}</source>
        <translation>无法读取设置，已使用默认值：{0}</translation>
    </message>
    <message>
        <source>This machine</source>
        <translation>本机</translation>
    </message>
    <message>
        <source>Targets</source>
        <translation>目标档位</translation>
    </message>
    <message>
        <source>Build</source>
        <translation>配置单</translation>
    </message>
    <message>
        <source>Wizard</source>
        <translation>需求向导</translation>
    </message>
    <message>
        <source>Benchmark</source>
        <translation>性能测试</translation>
    </message>
    <message>
        <source>Report</source>
        <translation>报告</translation>
    </message>
    <message>
        <source>The parts catalog could not be loaded: {0}</source>
        <translation>无法加载配件目录：{0}</translation>
    </message>
    <message>
        <source>Your home folder is unknown (HOME is not set and this user has no passwd entry): TorchRig keeps its settings and files in {0}.</source>
        <translation>无法确定你的主目录（未设置 HOME，且此用户没有 passwd 条目）：TorchRig 将设置和文件保存在 {0}。</translation>
    </message>
    <message>
        <source>Loading…</source>
        <translation>正在加载…</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <source>&amp;New build</source>
        <translation>新建配置单(&amp;N)</translation>
    </message>
    <message>
        <source>&amp;Open…</source>
        <translation>打开(&amp;O)…</translation>
    </message>
    <message>
        <source>&amp;Save build</source>
        <translation>保存配置单(&amp;S)</translation>
    </message>
    <message>
        <source>Save build &amp;as…</source>
        <translation>配置单另存为(&amp;A)…</translation>
    </message>
    <message>
        <source>Open &amp;recent</source>
        <translation>最近打开(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <source>&amp;Edit</source>
        <translation>编辑(&amp;E)</translation>
    </message>
    <message>
        <source>&amp;Undo build edit</source>
        <translation>撤销配置单修改(&amp;U)</translation>
    </message>
    <message>
        <source>&amp;Redo build edit</source>
        <translation>重做配置单修改(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;Settings</source>
        <translation>设置(&amp;S)</translation>
    </message>
    <message>
        <source>&amp;Settings…</source>
        <translation>设置(&amp;S)…</translation>
    </message>
    <message>
        <source>&amp;Language</source>
        <translation>语言(&amp;L)</translation>
    </message>
    <message>
        <source>Follow the system</source>
        <translation>跟随系统</translation>
    </message>
    <message>
        <source>&amp;Theme</source>
        <translation>主题(&amp;T)</translation>
    </message>
    <message>
        <source>Light</source>
        <translation>浅色</translation>
    </message>
    <message>
        <source>Dark</source>
        <translation>深色</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
    <message>
        <source>&amp;Documentation</source>
        <translation>文档(&amp;D)</translation>
    </message>
    <message>
        <source>&amp;About TorchRig</source>
        <translation>关于 TorchRig(&amp;A)</translation>
    </message>
    <message>
        <source>(no recent files)</source>
        <translation>（没有最近的文件）</translation>
    </message>
    <message>
        <source>Open</source>
        <translation>打开</translation>
    </message>
    <message>
        <source>TorchRig files (*.json *.pdf)</source>
        <translation>TorchRig 文件 (*.json *.pdf)</translation>
    </message>
    <message>
        <source>Build, workload or benchmark report (*.json)</source>
        <translation>配置单、工作负载或性能测试报告 (*.json)</translation>
    </message>
    <message>
        <source>TorchRig PDF sheet (*.pdf)</source>
        <translation>TorchRig PDF 配置表 (*.pdf)</translation>
    </message>
    <message>
        <source>Cannot open file</source>
        <translation>无法打开文件</translation>
    </message>
    <message>
        <source>Cannot open benchmark report</source>
        <translation>无法打开性能测试报告</translation>
    </message>
    <message>
        <source>The new language or theme applies when the running task finishes.</source>
        <translation>新的语言或主题将在当前任务完成后生效。</translation>
    </message>
    <message>
        <source>README.md in the TorchRig source</source>
        <translation>TorchRig 源代码中的 README.md</translation>
    </message>
    <message>
        <source>Documentation</source>
        <translation>文档</translation>
    </message>
    <message>
        <source>The documentation is the README: {0}</source>
        <translation>文档即 README：{0}</translation>
    </message>
    <message>
        <source>A background task did not stop in time.</source>
        <translation>后台任务未能及时停止。</translation>
    </message>
</context>
<context>
    <name>PartPicker</name>
    <message>
        <source>Catalog</source>
        <translation>配件目录</translation>
    </message>
    <message>
        <source>Which kind of part the list shows</source>
        <translation>列表中显示的配件类别</translation>
    </message>
    <message>
        <source>Search parts…</source>
        <translation>搜索配件…</translation>
    </message>
    <message>
        <source>Words to match in vendor, name and key spec; all words must match. Case, spaces and GB/GiB do not matter: “24GB” finds 24 GiB cards.</source>
        <translation>在厂商、型号和关键规格中匹配的词，须全部匹配。不区分大小写、空格和 GB/GiB：“24GB”可找到 24 GiB 的显卡。</translation>
    </message>
    <message>
        <source>Compatible with this build</source>
        <translation>与当前配置兼容</translation>
    </message>
    <message>
        <source>Hide parts that would add a blocking problem to the build (wrong socket, too long for the case…); a board, CPU, case, cooler or power supply replaces the build&apos;s</source>
        <translation>隐藏会给配置带来阻断问题的配件（插槽不符、机箱装不下…）；主板、CPU、机箱、散热器或电源会替换配置中已有的同类配件</translation>
    </message>
    <message>
        <source>Which figure the minimum and maximum apply to</source>
        <translation>最小值和最大值所针对的指标</translation>
    </message>
    <message>
        <source>min</source>
        <translation>最小</translation>
    </message>
    <message>
        <source>max</source>
        <translation>最大</translation>
    </message>
    <message>
        <source>Order of the list; parts without the figure go last</source>
        <translation>列表排序；缺少该指标的配件排在最后</translation>
    </message>
    <message>
        <source>Highest first</source>
        <translation>从高到低</translation>
    </message>
    <message>
        <source>Add to build</source>
        <translation>加入配置单</translation>
    </message>
    <message>
        <source>Add the selected part (or double-click it); adding it again raises the quantity</source>
        <translation>加入选中的配件（也可双击）；重复加入会增加数量</translation>
    </message>
    <message>
        <source>Price ({0})</source>
        <translation>价格（{0}）</translation>
    </message>
    <message>
        <source>Any {0}</source>
        <translation>任意{0}</translation>
    </message>
    <message>
        <source>Catalog order</source>
        <translation>目录顺序</translation>
    </message>
    <message>
        <source>Price per FP16 tensor TFLOP</source>
        <translation>每 FP16 Tensor TFLOP 价格</translation>
    </message>
    <message>
        <source>&apos;{0}&apos; is not a number the filter can use: write 1299.00 or 1,299.00 (a point before the decimals; commas only between groups of three digits)</source>
        <translation>“{0}”不是筛选可用的数字：请写成 1299.00 或 1,299.00（小数前用小数点；逗号只用于每三位数字之间）</translation>
    </message>
    <message>
        <source>Part</source>
        <translation>配件</translation>
    </message>
    <message>
        <source>no price: enter one</source>
        <translation>无价格：请输入</translation>
    </message>
    <message>
        <source>exchange rate needed</source>
        <translation>需要汇率</translation>
    </message>
    <message>
        <source>{0} {1} at {2} CNY per USD ({3}{4})</source>
        <translation>{0} {1}，按 {2} 元/美元换算（{3}{4}）</translation>
    </message>
    <message>
        <source>, default from Settings</source>
        <translation>，设置中的默认汇率</translation>
    </message>
    <message>
        <source>Some prices are in another currency: set an exchange rate with its date in the build, or a default in Settings.</source>
        <translation>部分价格为其他币种：请在配置单中设置汇率及其日期，或在设置中设置默认汇率。</translation>
    </message>
    <message>
        <source>Converted at the Settings default: {0} CNY per USD ({1}).</source>
        <translation>按设置中的默认汇率换算：{0} 元/美元（{1}）。</translation>
    </message>
    <message>
        <source>Converted at the shipped reference rate ({2}): {0} CNY per USD ({1}).</source>
        <translation>按随附的参考汇率（{2}）换算：{0} 元/美元（{1}）。</translation>
    </message>
    <message>
        <source>Select a part in the catalog list first.</source>
        <translation>请先在配件目录中选择一个配件。</translation>
    </message>
</context>
<context>
    <name>PlaceholderPage</name>
    <message>
        <source>This page is not built yet.</source>
        <translation>此页面尚未完成。</translation>
    </message>
</context>
<context>
    <name>PowerLineLabel</name>
    <message>
        <source>Sustained draw: each CPU at its maximum power, each GPU at its board power, 150 W for the rest of the system. Headroom: the supplies&apos; capacity less that draw. At the wall: the draw divided by the supply&apos;s 80 PLUS efficiency (region in Settings).</source>
        <translation>持续功耗：每颗 CPU 按最大功耗、每块 GPU 按板卡功耗计，系统其余部分按 150 W 计。余量：电源总功率减去持续功耗。墙插功耗：持续功耗除以电源的 80 PLUS 效率（地区在设置中选择）。</translation>
    </message>
    <message>
        <source>Power: no CPU or GPU whose power the catalog knows yet.</source>
        <translation>功耗：尚无目录中已知功耗的 CPU 或 GPU。</translation>
    </message>
    <message>
        <source>Power: {0} W sustained</source>
        <translation>功耗：持续 {0} W</translation>
    </message>
    <message>
        <source>no power supply</source>
        <translation>无电源</translation>
    </message>
    <message>
        <source>supplies {0} W</source>
        <translation>电源 {0} W</translation>
    </message>
    <message>
        <source>headroom {0} W ({1}%)</source>
        <translation>余量 {0} W（{1}%）</translation>
    </message>
    <message>
        <source>{0} W at the wall ({1} A at {2} V)</source>
        <translation>墙插 {0} W（{2} V 下 {1} A）</translation>
    </message>
    <message>
        <source>not counted: {0}</source>
        <translation>未计入：{0}</translation>
    </message>
</context>
<context>
    <name>QuoteHeader</name>
    <message>
        <source>Quote</source>
        <translation>报价信息</translation>
    </message>
    <message>
        <source>The build&apos;s name: the quote&apos;s title and the suggested file name</source>
        <translation>配置单名称：用作报价单标题和建议的文件名</translation>
    </message>
    <message>
        <source>Who the quote is for (printed on the PDF)</source>
        <translation>报价对象（打印在 PDF 上）</translation>
    </message>
    <message>
        <source>The customer&apos;s project or purchase reference (printed on the PDF)</source>
        <translation>客户的项目名称或采购编号（打印在 PDF 上）</translation>
    </message>
    <message>
        <source>Identical machines: per-node lines are multiplied</source>
        <translation>相同配置的机器台数：按节点计的行会乘以该数</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <source>Customer</source>
        <translation>客户</translation>
    </message>
    <message>
        <source>Project</source>
        <translation>项目</translation>
    </message>
    <message>
        <source>Nodes</source>
        <translation>节点数</translation>
    </message>
    <message>
        <source>Currency of the quote; prices in the other currency are converted with the exchange rate</source>
        <translation>报价币种；另一币种的价格按汇率换算</translation>
    </message>
    <message>
        <source>not set</source>
        <translation>未设置</translation>
    </message>
    <message>
        <source>CNY per USD, as you set it (no online rates)</source>
        <translation>1 美元兑人民币的汇率，由您自行设置（不联网获取）</translation>
    </message>
    <message>
        <source>The day the exchange rate was taken (printed next to it, so the quote says how fresh it is)</source>
        <translation>汇率的取值日期（打印在汇率旁边，表明汇率的时效）</translation>
    </message>
    <message>
        <source>Tax added to the subtotal after the discount (e.g. 13 % VAT in China); 0 for none</source>
        <translation>折扣后在小计上加收的税（如中国增值税 13%）；0 表示不计税</translation>
    </message>
    <message>
        <source>Discount on the subtotal, as a percentage or an amount in the build&apos;s currency</source>
        <translation>小计的折扣，按百分比或按配置单币种的金额</translation>
    </message>
    <message>
        <source>amount</source>
        <translation>金额</translation>
    </message>
    <message>
        <source>Currency</source>
        <translation>币种</translation>
    </message>
    <message>
        <source>Exchange rate (CNY/USD)</source>
        <translation>汇率（人民币/美元）</translation>
    </message>
    <message>
        <source>Rate date</source>
        <translation>汇率日期</translation>
    </message>
    <message>
        <source>Tax</source>
        <translation>税</translation>
    </message>
    <message>
        <source>Discount</source>
        <translation>折扣</translation>
    </message>
</context>
<context>
    <name>RateLabel</name>
    <message>
        <source>Exchange rate {0} CNY per USD ({1}): {2}</source>
        <translation>汇率 1 USD = {0} CNY（{1}）：{2}</translation>
    </message>
</context>
<context>
    <name>ReplacePartDialog</name>
    <message>
        <source>Replace {0}</source>
        <translation>替换 {0}</translation>
    </message>
    <message>
        <source>Replace</source>
        <translation>替换</translation>
    </message>
    <message>
        <source>Put the selected part in this line&apos;s place (or double-click it); the quantity stays</source>
        <translation>用选中的部件替换这一行（或双击该部件）；数量不变</translation>
    </message>
</context>
<context>
    <name>ReportPage</name>
    <message>
        <source>Bill of materials</source>
        <translation>物料清单</translation>
    </message>
    <message>
        <source>Totals</source>
        <translation>合计</translation>
    </message>
    <message>
        <source>Tier comparison</source>
        <translation>档位对比</translation>
    </message>
    <message>
        <source>Workload requirements</source>
        <translation>工作负载需求</translation>
    </message>
    <message>
        <source>Measured vs planned</source>
        <translation>实测与规划对比</translation>
    </message>
    <message>
        <source>Benchmark results</source>
        <translation>性能测试结果</translation>
    </message>
    <message>
        <source>Seed claims vs measured</source>
        <translation>种子文档论断与实测对比</translation>
    </message>
    <message>
        <source>Scaling model</source>
        <translation>扩展性模型</translation>
    </message>
    <message>
        <source>Findings</source>
        <translation>检查结果</translation>
    </message>
    <message>
        <source>Attach the build file</source>
        <translation>附带配置单文件</translation>
    </message>
    <message>
        <source>Every line with quantity, unit price and the price&apos;s origin</source>
        <translation>列出每一行的数量、单价和价格来源</translation>
    </message>
    <message>
        <source>Subtotal, discount, tax and total</source>
        <translation>小计、折扣、税和合计</translation>
    </message>
    <message>
        <source>The build against the chosen seed tier, dimension by dimension</source>
        <translation>逐项对比配置单与所选种子文档中的档位</translation>
    </message>
    <message>
        <source>What the Wizard&apos;s workload needs (VRAM, RAM, disk, throughput)</source>
        <translation>需求向导中工作负载的需求（显存、内存、磁盘、吞吐量）</translation>
    </message>
    <message>
        <source>The Wizard&apos;s &quot;Measure on this machine&quot; run beside the plan, item by item (when one was made)</source>
        <translation>需求向导“本机实测”的结果与规划逐项对比（如已运行）</translation>
    </message>
    <message>
        <source>The last benchmark&apos;s measurements against spec peaks</source>
        <translation>最近一次性能测试的实测值与规格峰值对比</translation>
    </message>
    <message>
        <source>The seed document&apos;s claims next to what was measured here</source>
        <translation>种子文档的论断与本机实测结果并列</translation>
    </message>
    <message>
        <source>Modelled multi-GPU efficiency per interconnect</source>
        <translation>按互连方式建模的多 GPU 扩展效率</translation>
    </message>
    <message>
        <source>Compatibility, bottleneck and benchmark findings with their sources</source>
        <translation>兼容性、瓶颈和性能测试的检查结果及其依据</translation>
    </message>
    <message>
        <source>Embed the build file in the PDF so it can be opened again in TorchRig</source>
        <translation>将配置单文件嵌入 PDF，以便之后在 TorchRig 中重新打开</translation>
    </message>
    <message>
        <source>There is no build to print: make or open one on the Build page, or attach the Wizard&apos;s workload for a plan sheet.</source>
        <translation>没有可打印的配置：请在“配置”页新建或打开一个，或附上向导的工作负载以生成规划单。</translation>
    </message>
    <message>
        <source>A plan sheet has no parts list to put in a workbook; export it as PDF.</source>
        <translation>规划单没有部件清单，无法导出为工作簿；请导出为 PDF。</translation>
    </message>
    <message>
        <source>&lt;h2&gt;Report&lt;/h2&gt;</source>
        <translation>&lt;h2&gt;报告&lt;/h2&gt;</translation>
    </message>
    <message>
        <source>Update preview</source>
        <translation>更新预览</translation>
    </message>
    <message>
        <source>Open exported file</source>
        <translation>打开导出的文件</translation>
    </message>
    <message>
        <source>Print…</source>
        <translation>打印…</translation>
    </message>
    <message>
        <source>Print the sheet exactly as previewed</source>
        <translation>按预览原样打印配置表</translation>
    </message>
    <message>
        <source>Header (remembered)</source>
        <translation>页眉（会被记住）</translation>
    </message>
    <message>
        <source>Quote</source>
        <translation>报价单</translation>
    </message>
    <message>
        <source>Build sheet</source>
        <translation>配置清单</translation>
    </message>
    <message>
        <source>Quote: a priced offer with a validity period. Build sheet: the same content without an offer</source>
        <translation>报价单：带有效期的正式报价。配置清单：内容相同，但不作为报价</translation>
    </message>
    <message>
        <source>Your quote or document number, printed as typed</source>
        <translation>您的报价单或文档编号，按输入原样打印</translation>
    </message>
    <message>
        <source>Sender shown at the top of the PDF (default in Settings)</source>
        <translation>显示在 PDF 顶部的发件方（默认值在“设置”中）</translation>
    </message>
    <message>
        <source>Phone, e-mail or address printed under the shop name (default in Settings)</source>
        <translation>打印在店铺名称下方的电话、邮箱或地址（默认值在“设置”中）</translation>
    </message>
    <message>
        <source>A PNG or JPEG drawn at the top right of the PDF</source>
        <translation>显示在 PDF 右上角的 PNG 或 JPEG 图片</translation>
    </message>
    <message>
        <source>Browse…</source>
        <translation>浏览…</translation>
    </message>
    <message>
        <source> days</source>
        <translation> 天</translation>
    </message>
    <message>
        <source>not stated</source>
        <translation>不注明</translation>
    </message>
    <message>
        <source>How long a quote&apos;s prices hold, counted from today; 0 prints no validity</source>
        <translation>报价的有效天数，从今天起算；0 表示不打印有效期</translation>
    </message>
    <message>
        <source>Language of the PDF, independent of the window&apos;s language</source>
        <translation>PDF 的语言，与窗口语言无关</translation>
    </message>
    <message>
        <source>The build&apos;s tier</source>
        <translation>配置单所属档位</translation>
    </message>
    <message>
        <source>The seed tier the build is compared with in the Tier comparison section</source>
        <translation>在“档位对比”部分中与配置单对比的种子文档中的档位</translation>
    </message>
    <message>
        <source>Kind</source>
        <translation>类型</translation>
    </message>
    <message>
        <source>Number</source>
        <translation>编号</translation>
    </message>
    <message>
        <source>Shop / lab</source>
        <translation>店铺 / 实验室</translation>
    </message>
    <message>
        <source>Contact</source>
        <translation>联系方式</translation>
    </message>
    <message>
        <source>Logo (PNG/JPEG)</source>
        <translation>标志（PNG/JPEG）</translation>
    </message>
    <message>
        <source>Valid for</source>
        <translation>有效期</translation>
    </message>
    <message>
        <source>PDF language</source>
        <translation>PDF 语言</translation>
    </message>
    <message>
        <source>Compare with</source>
        <translation>对比档位</translation>
    </message>
    <message>
        <source>Sections</source>
        <translation>内容部分</translation>
    </message>
    <message>
        <source>PDF preview needs the PySide6-Pdf package; Export still works.</source>
        <translation>PDF 预览需要 PySide6-Pdf 软件包；导出功能仍可使用。</translation>
    </message>
    <message>
        <source>build: {0}</source>
        <translation>配置单：{0}</translation>
    </message>
    <message>
        <source>no build yet (make one on the Build page)</source>
        <translation>尚无配置单（请在“配置单”页面创建）</translation>
    </message>
    <message>
        <source>workload: {0}</source>
        <translation>工作负载：{0}</translation>
    </message>
    <message>
        <source>benchmark of {0}</source>
        <translation>{0} 的性能测试</translation>
    </message>
    <message>
        <source>collective report</source>
        <translation>集合通信报告</translation>
    </message>
    <message>
        <source>Logo</source>
        <translation>标志</translation>
    </message>
    <message>
        <source>Images (*.png *.jpg *.jpeg)</source>
        <translation>图片 (*.png *.jpg *.jpeg)</translation>
    </message>
    <message>
        <source>Qt&apos;s PDF module (PySide6 QtPdf) is not installed.</source>
        <translation>未安装 Qt 的 PDF 模块（PySide6 QtPdf）。</translation>
    </message>
    <message>
        <source>The sheet could not be read back for printing.</source>
        <translation>无法读回报价单以进行打印。</translation>
    </message>
    <message>
        <source>The printer could not be started.</source>
        <translation>无法启动打印机。</translation>
    </message>
    <message>
        <source>The window closes when the print run has been sent.</source>
        <translation>打印任务发送完毕后窗口将关闭。</translation>
    </message>
    <message>
        <source>logo {0}: no such file</source>
        <translation>标志 {0}：文件不存在</translation>
    </message>
    <message>
        <source>Export…</source>
        <translation>导出…</translation>
    </message>
    <message>
        <source>Save the sheet as a PDF, or the quote as an Excel workbook with formulas (.xlsx)</source>
        <translation>将配置单保存为 PDF，或将报价保存为带公式的 Excel 工作簿（.xlsx）</translation>
    </message>
    <message>
        <source>Internal sheet (not for the customer)</source>
        <translation>内部单（不发给客户）</translation>
    </message>
    <message>
        <source>For the shop&apos;s own use: keeps how old each price is, how reliable its source, the estimate remarks and the &quot;edited in TorchRig&quot; marks, and adds a &quot;This machine&quot; column to the Tier comparison. Leave it off for a customer quote</source>
        <translation>供店内使用：保留各价格的日期新旧、来源可靠性、估算说明和“在 TorchRig 中修改”标记，并在档位对比中加入“本机”一列。给客户的报价请不要勾选</translation>
    </message>
    <message>
        <source>Attach the Wizard&apos;s workload</source>
        <translation>附上向导的工作负载</translation>
    </message>
    <message>
        <source>Print the Wizard&apos;s workload with its requirements, findings and scaling chart. Without a build, the sheet is then a plan: requirements, findings and a recommendation</source>
        <translation>打印向导的工作负载及其需求、检查结果和扩展图。没有配置时，生成的是规划单：需求、检查结果和推荐</translation>
    </message>
    <message>
        <source>no build: a plan sheet</source>
        <translation>无配置：规划单</translation>
    </message>
    <message>
        <source>Rendering…</source>
        <translation>正在生成…</translation>
    </message>
    <message>
        <source>Preview: {0} kB</source>
        <translation>预览：{0} kB</translation>
    </message>
    <message>
        <source>The preview cannot be drawn ({0}); Export still writes the PDF.</source>
        <translation>无法绘制预览（{0}）；导出仍会写出 PDF。</translation>
    </message>
    <message>
        <source>PDF document (*.pdf)</source>
        <translation>PDF 文档 (*.pdf)</translation>
    </message>
    <message>
        <source>Excel workbook (*.xlsx)</source>
        <translation>Excel 工作簿 (*.xlsx)</translation>
    </message>
    <message>
        <source>Export</source>
        <translation>导出</translation>
    </message>
    <message>
        <source>Cannot export</source>
        <translation>无法导出</translation>
    </message>
    <message>
        <source>Exported {0} ({1} kB)</source>
        <translation>已导出 {0}（{1} kB）</translation>
    </message>
    <message>
        <source>Cannot print</source>
        <translation>无法打印</translation>
    </message>
    <message>
        <source>This Qt installation has no print support (QtPrintSupport); export the PDF and print it from a PDF reader.</source>
        <translation>当前 Qt 安装不支持打印（缺少 QtPrintSupport）；请导出 PDF 后用 PDF 阅读器打印。</translation>
    </message>
    <message>
        <source>A print run is still being sent to the printer.</source>
        <translation>上一个打印任务仍在发送到打印机。</translation>
    </message>
    <message>
        <source>Printing…</source>
        <translation>正在打印…</translation>
    </message>
    <message>
        <source>Printing page {0} of {1}…</source>
        <translation>正在打印第 {0} 页，共 {1} 页…</translation>
    </message>
    <message>
        <source>Sent 1 page to the printer.</source>
        <translation>已将 1 页发送到打印机。</translation>
    </message>
    <message>
        <source>Sent {0} pages to the printer.</source>
        <translation>已将 {0} 页发送到打印机。</translation>
    </message>
</context>
<context>
    <name>ScalingChart</name>
    <message>
        <source>No scaling curve: single-GPU or no GPU figures to model with</source>
        <translation>无扩展曲线：单 GPU，或没有可用于建模的 GPU 数据</translation>
    </message>
    <message>
        <source>GPUs</source>
        <translation>GPU 数量</translation>
    </message>
    <message>
        <source>seed 2.3: 80 %</source>
        <translation>种子文档 2.3 节：80%</translation>
    </message>
</context>
<context>
    <name>SettingsDialog</name>
    <message>
        <source>Settings</source>
        <translation>设置</translation>
    </message>
    <message>
        <source>Appearance</source>
        <translation>外观</translation>
    </message>
    <message>
        <source>Follow the system</source>
        <translation>跟随系统</translation>
    </message>
    <message>
        <source>Language of the window. Follow the system: Chinese when the desktop&apos;s locale is Chinese</source>
        <translation>窗口的语言。跟随系统：桌面区域设置为中文时使用中文</translation>
    </message>
    <message>
        <source>Light</source>
        <translation>浅色</translation>
    </message>
    <message>
        <source>Dark</source>
        <translation>深色</translation>
    </message>
    <message>
        <source>Light or dark colours; the system setting is used where the desktop reports one</source>
        <translation>浅色或深色；跟随系统时使用桌面提供的设置</translation>
    </message>
    <message>
        <source>Language</source>
        <translation>语言</translation>
    </message>
    <message>
        <source>Theme</source>
        <translation>主题</translation>
    </message>
    <message>
        <source>Quotes</source>
        <translation>报价</translation>
    </message>
    <message>
        <source>Currency of new builds (an open build keeps its own)</source>
        <translation>新配置单的币种（已打开的配置单保持自己的币种）</translation>
    </message>
    <message>
        <source>not set</source>
        <translation>未设置</translation>
    </message>
    <message>
        <source>CNY per USD for new builds, as you set it: TorchRig never fetches rates online</source>
        <translation>新配置单使用的 1 美元兑人民币汇率，由您设置：TorchRig 从不联网获取汇率</translation>
    </message>
    <message>
        <source>The day the rate was taken, printed next to it</source>
        <translation>汇率的取值日期，打印在汇率旁边</translation>
    </message>
    <message>
        <source>Not set: builds without a rate use the shipped reference, {0} CNY per USD ({1}).</source>
        <translation>未设置：没有汇率的配置单使用内置参考汇率 1 USD = {0} CNY（{1}）。</translation>
    </message>
    <message>
        <source>Not set and no reference rate shipped: enter a rate in each build.</source>
        <translation>未设置，且没有内置参考汇率：请在每份配置单中填写汇率。</translation>
    </message>
    <message>
        <source>Where builds are plugged in: the wall-circuit check compares a build&apos;s draw with this region&apos;s outlets (mainland China 220 V 10/16 A, US 120 V 15 A, EU 230 V 16 A)</source>
        <translation>配置接入的电网：墙插回路检查将整机功耗与该地区的插座比较（中国大陆 220 V 10/16 A，美国 120 V 15 A，欧盟 230 V 16 A）</translation>
    </message>
    <message>
        <source>Shop or lab name printed as the sender of quotes</source>
        <translation>作为报价单发件方打印的店铺或实验室名称</translation>
    </message>
    <message>
        <source>Phone, e-mail or address printed under the name</source>
        <translation>打印在名称下方的电话、邮箱或地址</translation>
    </message>
    <message>
        <source>A PNG or JPEG drawn at the top right of quotes</source>
        <translation>显示在报价单右上角的 PNG 或 JPEG 图片</translation>
    </message>
    <message>
        <source>Currency for new builds</source>
        <translation>新配置单币种</translation>
    </message>
    <message>
        <source>Exchange rate (CNY per USD)</source>
        <translation>汇率（1 美元兑人民币）</translation>
    </message>
    <message>
        <source>Rate date</source>
        <translation>汇率日期</translation>
    </message>
    <message>
        <source>Region</source>
        <translation>地区</translation>
    </message>
    <message>
        <source>Shop / lab name</source>
        <translation>店铺 / 实验室名称</translation>
    </message>
    <message>
        <source>Contact</source>
        <translation>联系方式</translation>
    </message>
    <message>
        <source>Logo</source>
        <translation>标志</translation>
    </message>
    <message>
        <source>Folders</source>
        <translation>文件夹</translation>
    </message>
    <message>
        <source>Where Open and Save start for build files</source>
        <translation>打开和保存配置单文件时的起始位置</translation>
    </message>
    <message>
        <source>Folder on the dataset&apos;s disk that the storage benchmark tests</source>
        <translation>存储测试所测的、位于数据集所在磁盘上的文件夹</translation>
    </message>
    <message>
        <source>Build files</source>
        <translation>配置单文件</translation>
    </message>
    <message>
        <source>Dataset folder</source>
        <translation>数据集文件夹</translation>
    </message>
    <message>
        <source>Browse…</source>
        <translation>浏览…</translation>
    </message>
    <message>
        <source>Images (*.png *.jpg *.jpeg)</source>
        <translation>图片 (*.png *.jpg *.jpeg)</translation>
    </message>
    <message>
        <source>Choose a folder</source>
        <translation>选择文件夹</translation>
    </message>
    <message>
        <source>Exchange rate</source>
        <translation>汇率</translation>
    </message>
    <message>
        <source>Rate date: &apos;{0}&apos; is not a date like 2026-01-31.</source>
        <translation>汇率日期：“{0}”不是形如 2026-01-31 的日期。</translation>
    </message>
    <message>
        <source>{0}: the text is too long.</source>
        <translation>{0}：文字过长。</translation>
    </message>
    <message>
        <source>The settings could not be saved: {0}</source>
        <translation>无法保存设置：{0}</translation>
    </message>
</context>
<context>
    <name>TargetsPage</name>
    <message>
        <source>&lt;h2&gt;Targets&lt;/h2&gt;</source>
        <translation>&lt;h2&gt;目标档位&lt;/h2&gt;</translation>
    </message>
    <message>
        <source>Tier:</source>
        <translation>档位：</translation>
    </message>
    <message>
        <source>{0} (seed {1})</source>
        <translation>{0}（种子文档 {1} 节）</translation>
    </message>
    <message>
        <source>The seed document&apos;s three target configurations (sections 2.1-2.3)</source>
        <translation>种子文档给出的三档目标配置（2.1–2.3 节）</translation>
    </message>
    <message>
        <source>Start a build from this tier</source>
        <translation>以此档位新建配置单</translation>
    </message>
    <message>
        <source>Open the Build page with this tier&apos;s parts, ready to price and edit</source>
        <translation>用此档位的配件打开“配置单”页面，可直接报价和修改</translation>
    </message>
    <message>
        <source>Dimension</source>
        <translation>指标</translation>
    </message>
    <message>
        <source>Target: {0}</source>
        <translation>目标：{0}</translation>
    </message>
    <message>
        <source>short: below the tier&apos;s target; meets: at or above it; exceeds: at least twice the target or a faster class of device</source>
        <translation>不足：低于该档位的目标；达标：达到或高于目标；超出：至少为目标的两倍，或属于更快一级的设备</translation>
    </message>
    <message>
        <source>{0}: {1} of {2} dimensions short</source>
        <translation>{0}：{2} 项中有 {1} 项不足</translation>
    </message>
    <message>
        <source>Waiting for detection of this machine…</source>
        <translation>正在等待本机检测结果…</translation>
    </message>
    <message>
        <source>Seed price range:</source>
        <translation>种子文档价格区间：</translation>
    </message>
    <message>
        <source>Use cases:</source>
        <translation>适用场景：</translation>
    </message>
    <message>
        <source>RAM:</source>
        <translation>内存：</translation>
    </message>
    <message>
        <source>Storage:</source>
        <translation>存储：</translation>
    </message>
    <message>
        <source>Claimed advantages:</source>
        <translation>种子文档所称优势：</translation>
    </message>
    <message>
        <source>This tier is consistent with the seed&apos;s own rules.</source>
        <translation>此档位与种子文档自身的规则一致。</translation>
    </message>
</context>
<context>
    <name>ThroughputChart</name>
    <message>
        <source>Run the benchmark to compare with spec peaks</source>
        <translation>运行性能测试后可与规格峰值对比</translation>
    </message>
</context>
<context>
    <name>VerifyPanel</name>
    <message>
        <source>Measure on this machine</source>
        <translation>在本机上实测</translation>
    </message>
    <message>
        <source>Build this workload&apos;s model with random weights, run a few training steps on this machine&apos;s GPU (or CPU) and compare each figure with the plan</source>
        <translation>用随机权重构建此工作负载的模型，在本机 GPU（或 CPU）上运行几步训练，并将每项数值与规划对比</translation>
    </message>
    <message>
        <source>Measure my model…</source>
        <translation>实测我的模型…</translation>
    </message>
    <message>
        <source>Pick a Python file whose function (named on the right) returns your torch.nn.Module; an optional batch(batch_size) in it returns (inputs, targets). It runs in a separate process</source>
        <translation>选择一个 Python 文件，其中的函数（名称填在右侧）返回你的 torch.nn.Module；文件中可选的 batch(batch_size) 返回 (inputs, targets)。在独立进程中运行</translation>
    </message>
    <message>
        <source>The function in your file that returns the model</source>
        <translation>文件中返回模型的函数</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Use the measured figures</source>
        <translation>使用实测数值</translation>
    </message>
    <message>
        <source>Store the measured activation memory and FLOPs per sample, and where they were measured, in the workload, and plan again with them</source>
        <translation>将实测的每样本激活内存和 FLOPs 及其测量条件写入工作负载，并据此重新规划</translation>
    </message>
    <message>
        <source>Give the name of the function that returns your model (for example make_model).</source>
        <translation>请填写返回你的模型的函数名（例如 make_model）。</translation>
    </message>
    <message>
        <source>Your model&apos;s Python file</source>
        <translation>你的模型的 Python 文件</translation>
    </message>
    <message>
        <source>Python files (*.py)</source>
        <translation>Python 文件 (*.py)</translation>
    </message>
    <message>
        <source>Starting…</source>
        <translation>正在启动…</translation>
    </message>
    <message>
        <source>Measured in {0} s.</source>
        <translation>实测用时 {0} 秒。</translation>
    </message>
    <message>
        <source>Stopped.</source>
        <translation>已停止。</translation>
    </message>
</context>
<context>
    <name>WizardPage</name>
    <message>
        <source>Image classification</source>
        <translation>图像分类</translation>
    </message>
    <message>
        <source>Detection / segmentation</source>
        <translation>目标检测 / 分割</translation>
    </message>
    <message>
        <source>NLP / transformer training</source>
        <translation>NLP / Transformer 训练</translation>
    </message>
    <message>
        <source>LLM fine-tuning (full)</source>
        <translation>大模型微调（全参数）</translation>
    </message>
    <message>
        <source>LLM fine-tuning (LoRA)</source>
        <translation>大模型微调（LoRA）</translation>
    </message>
    <message>
        <source>LLM inference</source>
        <translation>大模型推理</translation>
    </message>
    <message>
        <source>Reinforcement learning</source>
        <translation>强化学习</translation>
    </message>
    <message>
        <source>Image generation (diffusion)</source>
        <translation>图像生成（扩散模型）</translation>
    </message>
    <message>
        <source>Train from scratch</source>
        <translation>从头训练</translation>
    </message>
    <message>
        <source>Fine-tune</source>
        <translation>微调</translation>
    </message>
    <message>
        <source>Inference</source>
        <translation>推理</translation>
    </message>
    <message>
        <source>FP32</source>
        <translation>FP32</translation>
    </message>
    <message>
        <source>TF32 (FP32 with tensor cores)</source>
        <translation>TF32（使用 Tensor Core 的 FP32）</translation>
    </message>
    <message>
        <source>AMP FP16 (mixed precision)</source>
        <translation>AMP FP16（混合精度）</translation>
    </message>
    <message>
        <source>AMP BF16 (mixed precision)</source>
        <translation>AMP BF16（混合精度）</translation>
    </message>
    <message>
        <source>BF16 (pure)</source>
        <translation>纯 BF16</translation>
    </message>
    <message>
        <source>FP8 (LLM inference; transformer training with Transformer Engine; Ada, Hopper, Blackwell, CDNA 3)</source>
        <translation>FP8（大模型推理；用 Transformer Engine 训练 Transformer；Ada、Hopper、Blackwell、CDNA 3）</translation>
    </message>
    <message>
        <source>FP4 (NVFP4) weights and activations (LLM inference; Blackwell)</source>
        <translation>FP4（NVFP4）权重与激活（大模型推理；Blackwell）</translation>
    </message>
    <message>
        <source>INT8 weights (inference)</source>
        <translation>INT8 权重（推理）</translation>
    </message>
    <message>
        <source>INT4 weights, GPTQ/AWQ style (inference)</source>
        <translation>INT4 权重，GPTQ/AWQ 方式（推理）</translation>
    </message>
    <message>
        <source>Auto: the model&apos;s 16-bit type</source>
        <translation>自动：模型的 16 位类型</translation>
    </message>
    <message>
        <source>FP16 (2 bytes an element)</source>
        <translation>FP16（每元素 2 字节）</translation>
    </message>
    <message>
        <source>BF16 (2 bytes an element)</source>
        <translation>BF16（每元素 2 字节）</translation>
    </message>
    <message>
        <source>FP8 (half the bytes)</source>
        <translation>FP8（字节数减半）</translation>
    </message>
    <message>
        <source>SGD</source>
        <translation>SGD</translation>
    </message>
    <message>
        <source>SGD with momentum</source>
        <translation>带动量的 SGD</translation>
    </message>
    <message>
        <source>AdamW</source>
        <translation>AdamW</translation>
    </message>
    <message>
        <source>Adam 8-bit</source>
        <translation>8 位 Adam</translation>
    </message>
    <message>
        <source>DDP (data parallel)</source>
        <translation>DDP（数据并行）</translation>
    </message>
    <message>
        <source>ZeRO-1 (optimizer states sharded)</source>
        <translation>ZeRO-1（切分优化器状态）</translation>
    </message>
    <message>
        <source>ZeRO-2 (+ gradients sharded)</source>
        <translation>ZeRO-2（再切分梯度）</translation>
    </message>
    <message>
        <source>ZeRO-3 / FSDP (+ weights sharded)</source>
        <translation>ZeRO-3 / FSDP（再切分权重）</translation>
    </message>
    <message>
        <source>Tensor parallel</source>
        <translation>张量并行</translation>
    </message>
    <message>
        <source>Pipeline parallel</source>
        <translation>流水线并行</translation>
    </message>
    <message>
        <source>Expert parallel (MoE experts split)</source>
        <translation>专家并行（切分 MoE 专家）</translation>
    </message>
    <message>
        <source>None</source>
        <translation>无</translation>
    </message>
    <message>
        <source>Optimizer states to CPU RAM</source>
        <translation>优化器状态卸载到 CPU 内存</translation>
    </message>
    <message>
        <source>Optimizer states and weights to CPU RAM</source>
        <translation>优化器状态和权重卸载到 CPU 内存</translation>
    </message>
    <message>
        <source>The model&apos;s usual setting (on)</source>
        <translation>模型的常用设置（开启）</translation>
    </message>
    <message>
        <source>On: two denoiser passes per step</source>
        <translation>开启：每步两次去噪网络前向</translation>
    </message>
    <message>
        <source>Off</source>
        <translation>关闭</translation>
    </message>
    <message>
        <source>Not given: the machine&apos;s own, if known</source>
        <translation>未指定：用所核对机器自带的网络（如已知）</translation>
    </message>
    <message>
        <source>10 GbE</source>
        <translation>10 GbE 以太网</translation>
    </message>
    <message>
        <source>25 GbE</source>
        <translation>25 GbE 以太网</translation>
    </message>
    <message>
        <source>100 GbE</source>
        <translation>100 GbE 以太网</translation>
    </message>
    <message>
        <source>InfiniBand HDR (200 Gb/s)</source>
        <translation>InfiniBand HDR（每端口 200 Gb/s）</translation>
    </message>
    <message>
        <source>InfiniBand NDR (400 Gb/s)</source>
        <translation>InfiniBand NDR（每端口 400 Gb/s）</translation>
    </message>
    <message>
        <source>Task</source>
        <translation>任务</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>Training</source>
        <translation>训练</translation>
    </message>
    <message>
        <source>Data</source>
        <translation>数据</translation>
    </message>
    <message>
        <source>Scale</source>
        <translation>规模</translation>
    </message>
    <message>
        <source>Mode</source>
        <translation>模式</translation>
    </message>
    <message>
        <source>Parameters (custom)</source>
        <translation>参数量（自定义）</translation>
    </message>
    <message>
        <source>Layers (custom)</source>
        <translation>层数（自定义）</translation>
    </message>
    <message>
        <source>Hidden size (custom)</source>
        <translation>隐藏层维度（自定义）</translation>
    </message>
    <message>
        <source>Attention heads (custom)</source>
        <translation>注意力头数（自定义）</translation>
    </message>
    <message>
        <source>KV heads (custom)</source>
        <translation>KV 头数（自定义）</translation>
    </message>
    <message>
        <source>Vocabulary (custom)</source>
        <translation>词表大小（自定义）</translation>
    </message>
    <message>
        <source>Precision</source>
        <translation>精度</translation>
    </message>
    <message>
        <source>Optimizer</source>
        <translation>优化器</translation>
    </message>
    <message>
        <source>Batch size per GPU</source>
        <translation>每 GPU 批大小</translation>
    </message>
    <message>
        <source>Gradient accumulation steps</source>
        <translation>梯度累积步数</translation>
    </message>
    <message>
        <source>Image size (pixels)</source>
        <translation>图像尺寸（像素）</translation>
    </message>
    <message>
        <source>Sequence length (tokens)</source>
        <translation>序列长度（token）</translation>
    </message>
    <message>
        <source>Output tokens per request (serving)</source>
        <translation>每请求输出 token 数（推理服务）</translation>
    </message>
    <message>
        <source>KV cache type (serving)</source>
        <translation>KV 缓存类型（推理服务）</translation>
    </message>
    <message>
        <source>Gradient checkpointing</source>
        <translation>梯度检查点</translation>
    </message>
    <message>
        <source>LoRA rank</source>
        <translation>LoRA 秩</translation>
    </message>
    <message>
        <source>Epochs</source>
        <translation>训练轮数</translation>
    </message>
    <message>
        <source>Keep a moving average of the weights (EMA)</source>
        <translation>保留权重的滑动平均（EMA）</translation>
    </message>
    <message>
        <source>Denoising steps per image (generation)</source>
        <translation>每张图像的去噪步数（生成）</translation>
    </message>
    <message>
        <source>Classifier-free guidance (generation)</source>
        <translation>无分类器引导（生成）</translation>
    </message>
    <message>
        <source>Samples per epoch</source>
        <translation>每轮样本数</translation>
    </message>
    <message>
        <source>Mean sample size on disk (bytes)</source>
        <translation>磁盘上样本的平均大小（字节）</translation>
    </message>
    <message>
        <source>Decoded sample size (bytes, empty = derive)</source>
        <translation>解码后样本大小（字节，留空则自动推算）</translation>
    </message>
    <message>
        <source>Cache the dataset in RAM</source>
        <translation>将数据集缓存在内存中</translation>
    </message>
    <message>
        <source>Images already encoded to VAE latents</source>
        <translation>图像已预先编码为 VAE 潜变量</translation>
    </message>
    <message>
        <source>GPUs per node</source>
        <translation>每节点 GPU 数</translation>
    </message>
    <message>
        <source>Nodes</source>
        <translation>节点数</translation>
    </message>
    <message>
        <source>Network between nodes</source>
        <translation>节点间网络</translation>
    </message>
    <message>
        <source>Network ports per node</source>
        <translation>每节点网络端口数</translation>
    </message>
    <message>
        <source>Strategy</source>
        <translation>并行策略</translation>
    </message>
    <message>
        <source>Tensor-parallel size</source>
        <translation>张量并行规模</translation>
    </message>
    <message>
        <source>Pipeline-parallel size</source>
        <translation>流水线并行规模</translation>
    </message>
    <message>
        <source>Virtual pipeline stages per GPU</source>
        <translation>虚拟流水线阶段数</translation>
    </message>
    <message>
        <source>Expert-parallel size</source>
        <translation>专家并行规模</translation>
    </message>
    <message>
        <source>CPU offload</source>
        <translation>CPU 卸载</translation>
    </message>
    <message>
        <source>The kind of work; choosing one loads that task&apos;s typical defaults</source>
        <translation>工作类型；选择后会载入该任务的典型默认值</translation>
    </message>
    <message>
        <source>Training keeps gradients and optimizer states in memory; inference needs only the weights and activations</source>
        <translation>训练需要在显存中保存梯度和优化器状态；推理只需要权重和激活值</translation>
    </message>
    <message>
        <source>A model preset with published parameter counts, or Custom… to enter the architecture yourself</source>
        <translation>使用公开参数量的模型预设，或选择“自定义…”自行输入结构</translation>
    </message>
    <message>
        <source>Total trainable parameters, e.g. 7000000000 for a 7B model</source>
        <translation>可训练参数总数，例如 7B 模型为 7000000000</translation>
    </message>
    <message>
        <source>Number of transformer blocks</source>
        <translation>Transformer 块的数量</translation>
    </message>
    <message>
        <source>Width of the hidden state (d_model)</source>
        <translation>隐藏状态的维度（d_model）</translation>
    </message>
    <message>
        <source>Attention heads per layer</source>
        <translation>每层的注意力头数</translation>
    </message>
    <message>
        <source>Key/value heads (fewer than attention heads with grouped-query attention); sets the KV cache size</source>
        <translation>Key/Value 头数（使用分组查询注意力时少于注意力头数）；决定 KV 缓存大小</translation>
    </message>
    <message>
        <source>Tokenizer vocabulary size (embedding rows)</source>
        <translation>分词器词表大小（嵌入矩阵行数）</translation>
    </message>
    <message>
        <source>Number format of weights and math. Mixed precision (AMP) halves activation memory and uses tensor cores; Adam&apos;s states stay FP32 (seed 3.1)</source>
        <translation>权重和运算所用的数值格式。混合精度（AMP）使激活值显存减半并使用 Tensor Core；Adam 的状态仍为 FP32（种子文档 3.1 节）</translation>
    </message>
    <message>
        <source>Sets the optimizer state per parameter: none for SGD, one for momentum, two FP32 moments for AdamW</source>
        <translation>决定每个参数的优化器状态：SGD 没有，动量法一个，AdamW 两个 FP32 矩估计</translation>
    </message>
    <message>
        <source>Samples one GPU processes per step (the micro-batch); activation memory grows with it</source>
        <translation>每个 GPU 每步处理的样本数（微批次）；激活值显存随之增长</translation>
    </message>
    <message>
        <source>Micro-batches per optimizer step: the global batch is batch x this x data-parallel GPUs; gradients are synchronised once per step, and a pipeline&apos;s stages idle less with more of them</source>
        <translation>每个优化器步的微批次数：全局批大小 = 批大小 × 此数 × 数据并行 GPU 数；梯度每步同步一次，微批次越多，流水线各阶段的空闲越少</translation>
    </message>
    <message>
        <source>Input side length in pixels (224 for ImageNet classification)</source>
        <translation>输入图像边长，单位像素（ImageNet 分类为 224）</translation>
    </message>
    <message>
        <source>Tokens per sample; attention activations and the KV cache grow with it</source>
        <translation>每个样本的 token 数；注意力激活值和 KV 缓存随之增长</translation>
    </message>
    <message>
        <source>LLM inference: tokens generated per request; the sequence length is then the prompt, and the KV cache holds both</source>
        <translation>大模型推理：每个请求生成的 token 数；此时序列长度为提示长度，KV 缓存同时保存两者</translation>
    </message>
    <message>
        <source>LLM inference: the KV cache&apos;s number format; FP8 halves it, so twice the requests fit</source>
        <translation>大模型推理：KV 缓存的数值格式；FP8 使其减半，可容纳两倍的请求</translation>
    </message>
    <message>
        <source>Recompute activations in the backward pass: much less activation memory for extra compute time (seed 3.3)</source>
        <translation>在反向传播中重新计算激活值：大幅减少激活值显存，代价是额外的计算时间（种子文档 3.3 节）</translation>
    </message>
    <message>
        <source>Rank of the LoRA adapters; only the adapters are trained</source>
        <translation>LoRA 适配器的秩；只训练适配器</translation>
    </message>
    <message>
        <source>Passes over the dataset; used for the time estimate</source>
        <translation>遍历数据集的次数；用于估算时间</translation>
    </message>
    <message>
        <source>Training keeps an FP32 exponential moving average of the weights, as diffusion training usually does: 4 more bytes per trained parameter</source>
        <translation>训练时保留权重的 FP32 指数滑动平均（扩散模型训练通常如此）：每个训练参数多占 4 字节</translation>
    </message>
    <message>
        <source>Image generation: denoiser passes per image (empty = 50); guidance doubles each</source>
        <translation>图像生成：每张图像的去噪网络前向次数（留空为 50）；引导会使每次加倍</translation>
    </message>
    <message>
        <source>Image generation: guidance runs the denoiser with and without the prompt (or class) at every step, twice the work per image</source>
        <translation>图像生成：引导在每一步分别带与不带提示词（或类别）运行去噪网络，每张图像的计算量翻倍</translation>
    </message>
    <message>
        <source>Image generation training: the images were encoded to latents beforehand, so the VAE does not encode each batch (less memory and time)</source>
        <translation>图像生成训练：图像已预先编码为潜变量，VAE 无需逐批编码（更省显存和时间）</translation>
    </message>
    <message>
        <source>Images, sequences or environment steps in one epoch</source>
        <translation>一轮中的图像数、序列数或环境步数</translation>
    </message>
    <message>
        <source>Average size of one sample as stored (e.g. a JPEG); sets the disk read rate the loader needs</source>
        <translation>单个样本存储时的平均大小（如一张 JPEG）；决定数据加载所需的磁盘读取速度</translation>
    </message>
    <message>
        <source>One sample after decoding, in RAM; empty derives it from the image size or sequence length</source>
        <translation>单个样本解码后在内存中的大小；留空则根据图像尺寸或序列长度推算</translation>
    </message>
    <message>
        <source>Keep the decoded dataset in RAM so epochs after the first do not read the disk (seed 1.2)</source>
        <translation>将解码后的数据集保存在内存中，第一轮之后不再读取磁盘（种子文档 1.2 节）</translation>
    </message>
    <message>
        <source>GPUs in each machine</source>
        <translation>每台机器的 GPU 数</translation>
    </message>
    <message>
        <source>Machines; more than one adds network traffic</source>
        <translation>机器台数；多于一台会增加网络通信</translation>
    </message>
    <message>
        <source>The link between the nodes (for more than one node); not given, the network of the machine checked against when it has one, else the time assumes perfect scaling across nodes, an upper bound</source>
        <translation>节点之间的连接（多于一个节点时）；未指定时，用所核对机器自带的网络，若没有则时间按跨节点理想扩展计算，为上界</translation>
    </message>
    <message>
        <source>Ports of that network each node has for the GPUs&apos; traffic (empty = 1; a DGX H100 has 8)</source>
        <translation>每个节点用于 GPU 通信的该网络端口数（留空 = 1；DGX H100 有 8 个）</translation>
    </message>
    <message>
        <source>How the work is split over GPUs: DDP copies the model to every GPU, ZeRO/FSDP shard its states, tensor and pipeline parallelism split the model (seed 3.2)</source>
        <translation>如何在 GPU 间分配工作：DDP 在每个 GPU 上复制模型，ZeRO/FSDP 切分模型状态，张量并行和流水线并行切分模型本身（种子文档 3.2 节）</translation>
    </message>
    <message>
        <source>GPUs that split each layer (tensor parallelism); keep it within one node&apos;s NVLink domain</source>
        <translation>切分每一层的 GPU 数（张量并行）；应限制在单个节点的 NVLink 域内</translation>
    </message>
    <message>
        <source>Pipeline stages the layers are split into</source>
        <translation>模型各层被切分成的流水线阶段数</translation>
    </message>
    <message>
        <source>Model chunks each pipeline GPU holds (Megatron&apos;s interleaved 1F1B): the pipeline&apos;s bubble shrinks by this factor; 1 = plain 1F1B. Needs gradient accumulation steps a multiple of the pipeline stages</source>
        <translation>每块流水线 GPU 持有的模型块数（Megatron 的交错 1F1B）：流水线气泡按此倍数缩小；1 = 普通 1F1B。梯度累积步数须为流水线阶段数的整数倍</translation>
    </message>
    <message>
        <source>GPUs a mixture of experts&apos; routed experts are split over (each GPU keeps the attention and shared layers)</source>
        <translation>混合专家模型的路由专家切分到的 GPU 数（每块 GPU 保留注意力层和共享层）</translation>
    </message>
    <message>
        <source>Move optimizer states (and weights) to CPU RAM to save VRAM, at the cost of PCIe traffic</source>
        <translation>将优化器状态（及权重）移到 CPU 内存以节省显存，代价是 PCIe 传输</translation>
    </message>
    <message>
        <source>Exchange rate: give a positive number of CNY per USD, such as 7.1</source>
        <translation>汇率：请填写正数（每美元兑人民币），例如 7.1</translation>
    </message>
    <message>
        <source>Price per GPU-hour: give a positive amount such as 2.50 or 1,299.00 (a point before the decimals; commas only between groups of three digits)</source>
        <translation>每 GPU 小时价格：请填写正数金额，例如 2.50 或 1,299.00（小数前用小数点；逗号只用于每三位数字之间）</translation>
    </message>
    <message>
        <source>&lt;h2&gt;Wizard&lt;/h2&gt;</source>
        <translation>&lt;h2&gt;需求向导&lt;/h2&gt;</translation>
    </message>
    <message>
        <source>Open workload…</source>
        <translation>打开工作负载…</translation>
    </message>
    <message>
        <source>Save workload…</source>
        <translation>保存工作负载…</translation>
    </message>
    <message>
        <source>Import config.json…</source>
        <translation>导入 config.json…</translation>
    </message>
    <message>
        <source>Read a Hugging Face model&apos;s config.json (Llama, Mistral, Mixtral, Qwen, Gemma, Phi-3, DeepSeek, GPT-2, BERT/RoBERTa) as a custom model</source>
        <translation>读取 Hugging Face 模型的 config.json（Llama、Mistral、Mixtral、Qwen、Gemma、Phi-3、DeepSeek、GPT-2、BERT/RoBERTa），作为自定义模型</translation>
    </message>
    <message>
        <source>{0}. {1}</source>
        <translation>{0}. {1}</translation>
    </message>
    <message>
        <source>Back</source>
        <translation>上一步</translation>
    </message>
    <message>
        <source>Next</source>
        <translation>下一步</translation>
    </message>
    <message>
        <source>Check against:</source>
        <translation>检查对象：</translation>
    </message>
    <message>
        <source>This machine</source>
        <translation>本机</translation>
    </message>
    <message>
        <source>Current build</source>
        <translation>当前配置单</translation>
    </message>
    <message>
        <source>What the requirements are checked against: the detected machine, a seed tier or the Build page&apos;s build</source>
        <translation>用来检查需求的对象：检测到的本机、种子文档中的档位，或“配置单”页面中的配置</translation>
    </message>
    <message>
        <source>Findings</source>
        <translation>检查结果</translation>
    </message>
    <message>
        <source>Multi-GPU scaling</source>
        <translation>多 GPU 扩展</translation>
    </message>
    <message>
        <source>On this machine</source>
        <translation>本机实测</translation>
    </message>
    <message>
        <source>no time target</source>
        <translation>无时间目标</translation>
    </message>
    <message>
        <source>The run must finish within this many hours: tiers and GPUs that take longer are not recommended</source>
        <translation>运行必须在这么多小时内完成：耗时更长的档位和 GPU 不予推荐</translation>
    </message>
    <message>
        <source>Must finish within (hours)</source>
        <translation>须在以下时间内完成（小时）</translation>
    </message>
    <message>
        <source>US dollars (USD)</source>
        <translation>美元（USD）</translation>
    </message>
    <message>
        <source>Chinese yuan (CNY)</source>
        <translation>人民币（CNY）</translation>
    </message>
    <message>
        <source>The currency prices are compared in</source>
        <translation>比较价格所用的币种</translation>
    </message>
    <message>
        <source>Compare prices in</source>
        <translation>价格币种</translation>
    </message>
    <message>
        <source>empty: the shipped reference, {0} ({1}, {2})</source>
        <translation>留空：使用内置参考汇率 {0}（{1}，{2}）</translation>
    </message>
    <message>
        <source>no exchange rate</source>
        <translation>无汇率</translation>
    </message>
    <message>
        <source>CNY per USD, to compare catalog prices given in the other currency; starts at the default rate set in Settings</source>
        <translation>每美元兑人民币数，用于比较以另一币种标价的目录价格；初始值为设置中的默认汇率</translation>
    </message>
    <message>
        <source>Exchange rate (CNY per USD)</source>
        <translation>汇率（1 美元兑人民币）</translation>
    </message>
    <message>
        <source>The GPU your hourly price is for</source>
        <translation>你的每小时价格对应的 GPU</translation>
    </message>
    <message>
        <source>no price</source>
        <translation>无价格</translation>
    </message>
    <message>
        <source>What one GPU-hour of that GPU costs you (rental or internal charge rate), in the currency above: adds the cost per epoch or per million tokens</source>
        <translation>该 GPU 每 GPU 小时的费用（租用价或内部计费），按上面的币种：据此给出每个 epoch 或每百万 token 的费用</translation>
    </message>
    <message>
        <source>Your price per GPU-hour</source>
        <translation>你的每 GPU 小时价格</translation>
    </message>
    <message>
        <source>Time target: give a positive number of hours</source>
        <translation>目标时间：请填写正的小时数</translation>
    </message>
    <message>
        <source>Custom…</source>
        <translation>自定义…</translation>
    </message>
    <message>
        <source>&apos;{0}&apos; is not a number</source>
        <translation>“{0}”不是数字</translation>
    </message>
    <message>
        <source>must be a whole number</source>
        <translation>必须是整数</translation>
    </message>
    <message>
        <source>This machine (detecting…)</source>
        <translation>本机（检测中…）</translation>
    </message>
    <message>
        <source>Cannot apply the change</source>
        <translation>无法应用此改动</translation>
    </message>
    <message>
        <source>Open workload</source>
        <translation>打开工作负载</translation>
    </message>
    <message>
        <source>Workload (*.json)</source>
        <translation>工作负载 (*.json)</translation>
    </message>
    <message>
        <source>Cannot open workload</source>
        <translation>无法打开工作负载</translation>
    </message>
    <message>
        <source>Import a Hugging Face config.json</source>
        <translation>导入 Hugging Face config.json</translation>
    </message>
    <message>
        <source>Model config (config.json *.json)</source>
        <translation>模型配置（config.json *.json）</translation>
    </message>
    <message>
        <source>Cannot import the config</source>
        <translation>无法导入该配置</translation>
    </message>
    <message>
        <source>Save workload</source>
        <translation>保存工作负载</translation>
    </message>
    <message>
        <source>Cannot save workload</source>
        <translation>无法保存工作负载</translation>
    </message>
</context>
<context>
    <name>WizardResults</name>
    <message>
        <source>Planning failed: {0}</source>
        <translation>规划失败：{0}</translation>
    </message>
    <message>
        <source>Out of date: these results are for the last valid input. Correct the field marked in red to plan again.</source>
        <translation>已过期：以下结果对应上一次有效的输入。请改正标红的字段后重新规划。</translation>
    </message>
    <message>
        <source>no GPU on {0}</source>
        <translation>{0} 没有 GPU</translation>
    </message>
    <message>
        <source>GPU memory of {0} unknown</source>
        <translation>{0} 的显存未知</translation>
    </message>
    <message>
        <source>fits on {0}</source>
        <translation>{0} 放得下</translation>
    </message>
    <message>
        <source>tight on {0}: only the safety margin is short</source>
        <translation>在 {0} 上很紧：只缺安全余量</translation>
    </message>
    <message>
        <source>does not fit on {0}</source>
        <translation>{0} 放不下</translation>
    </message>
    <message>
        <source>VRAM per GPU:</source>
        <translation>每 GPU 显存：</translation>
    </message>
    <message>
        <source>Not ready: 1 blocker ({0})</source>
        <translation>尚不可行：1 个阻断问题（{0}）</translation>
    </message>
    <message>
        <source>Not ready: {0} blockers, first: {1}</source>
        <translation>尚不可行：{0} 个阻断问题，第一个：{1}</translation>
    </message>
    <message>
        <source>Estimated throughput:</source>
        <translation>估算吞吐量：</translation>
    </message>
    <message>
        <source>1 sample/s; time per epoch {0}</source>
        <translation>每秒 1 个样本；每轮用时 {0}</translation>
    </message>
    <message>
        <source>{0} samples/s; time per epoch {1}</source>
        <translation>每秒 {0} 个样本；每轮用时 {1}</translation>
    </message>
    <message>
        <source>(assumes {0} of {1})</source>
        <translation>（假设达到 {1} 的 {0}）</translation>
    </message>
    <message>
        <source>unknown</source>
        <translation>未知</translation>
    </message>
    <message>
        <source>Scaling efficiency:</source>
        <translation>扩展效率：</translation>
    </message>
    <message>
        <source>planned in {0} ms</source>
        <translation>规划用时 {0} 毫秒</translation>
    </message>
    <message>
        <source>No bottlenecks found.</source>
        <translation>未发现瓶颈。</translation>
    </message>
    <message>
        <source>(seed {0})</source>
        <translation>（种子文档 {0} 节）</translation>
    </message>
    <message>
        <source>lowest tier {0}; catalog GPU ({1}): {2}</source>
        <translation>最低档位 {0}；目录 GPU（{1}）：{2}</translation>
    </message>
    <message>
        <source>lowest tier {0}; no catalog GPU fits</source>
        <translation>最低档位 {0}；目录中没有放得下的 GPU</translation>
    </message>
    <message>
        <source>with {0}, not as shown above with {1}</source>
        <translation>需使用 {0}，而非上方所示的 {1}</translation>
    </message>
    <message>
        <source>none of the seed&apos;s tiers</source>
        <translation>种子文档中没有合适的档位</translation>
    </message>
    <message>
        <source>Recommended:</source>
        <translation>推荐：</translation>
    </message>
    <message>
        <source>as {0} x {1} GPUs (nodes x GPUs per node), not as shown above with {2} x {3}</source>
        <translation>按 {0} × {1} 块 GPU（节点数 × 每节点 GPU 数），而非上方所示的 {2} × {3}</translation>
    </message>
    <message>
        <source>run time on the tier&apos;s GPU: {0}</source>
        <translation>在该档位 GPU 上的运行时间：{0}</translation>
    </message>
    <message>
        <source>(target {0})</source>
        <translation>（目标 {0}）</translation>
    </message>
    <message>
        <source>No tier finishes within {0}.</source>
        <translation>没有档位能在 {0} 内完成。</translation>
    </message>
    <message>
        <source>no price in {0}</source>
        <translation>无 {0} 价格</translation>
    </message>
    <message>
        <source>{0}: {1} per GPU, run time {2}</source>
        <translation>{0}：每块 {1}，运行时间 {2}</translation>
    </message>
    <message>
        <source>At your price, {0}: no epoch or token rate to cost</source>
        <translation>按你的价格，{0}：没有可计费的 epoch 或 token 速率</translation>
    </message>
    <message>
        <source>At your price, {0}: {1} per epoch, run time {2}</source>
        <translation>按你的价格，{0}：每个 epoch {1}，运行时间 {2}</translation>
    </message>
    <message>
        <source>At your price, {0}: {1} per million tokens</source>
        <translation>按你的价格，{0}：每百万 token {1}</translation>
    </message>
    <message>
        <source>(misses the time target)</source>
        <translation>（超出目标时间）</translation>
    </message>
    <message>
        <source>Changes that make it fit (re-planned):</source>
        <translation>可使其装下的改动（已重新估算）：</translation>
    </message>
    <message>
        <source>Apply</source>
        <translation>应用</translation>
    </message>
    <message>
        <source>Change the workload to this setting</source>
        <translation>把工作负载改为此设置</translation>
    </message>
    <message>
        <source>modelled with {0}</source>
        <translation>按 {0} 建模</translation>
    </message>
    <message>
        <source>No scaling curve: inference, or no GPU throughput to model with.</source>
        <translation>无扩展曲线：推理任务，或没有可用于建模的 GPU 吞吐量。</translation>
    </message>
</context>
<context>
    <name>_CustomLineDialog</name>
    <message>
        <source>Custom line item</source>
        <translation>自定义行</translation>
    </message>
    <message>
        <source>What the line is, as it should read on the quote</source>
        <translation>这一行是什么，按报价单上应显示的写法填写</translation>
    </message>
    <message>
        <source>Where the line is listed and totalled on the quote</source>
        <translation>这一行在报价单上归入哪个类别并汇总</translation>
    </message>
    <message>
        <source>unit price in {0} (empty: ask later)</source>
        <translation>以 {0} 计的单价（留空：稍后再填）</translation>
    </message>
    <message>
        <source>Price of one unit in the build&apos;s currency; leave empty and the line is marked as needing a price</source>
        <translation>以配置单币种计的单价；留空则此行标记为需要价格</translation>
    </message>
    <message>
        <source>per node</source>
        <translation>每节点</translation>
    </message>
    <message>
        <source>once for the cluster</source>
        <translation>整个集群一次</translation>
    </message>
    <message>
        <source>Per node: multiplied by the number of nodes. Once: bought once for the whole cluster (a switch, a service)</source>
        <translation>每节点：乘以节点数。一次：整个集群只购买一次（如交换机、服务）</translation>
    </message>
    <message>
        <source>Description</source>
        <translation>说明</translation>
    </message>
    <message>
        <source>Category</source>
        <translation>类别</translation>
    </message>
    <message>
        <source>Quantity</source>
        <translation>数量</translation>
    </message>
    <message>
        <source>Unit price</source>
        <translation>单价</translation>
    </message>
    <message>
        <source>Scope</source>
        <translation>计算范围</translation>
    </message>
</context>
</TS>

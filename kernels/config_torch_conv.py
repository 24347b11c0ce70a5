# A small convolutional network, float32 and fp16, forward and backward.
import torch
torch.manual_seed(0)
dev = "cuda"
net = torch.nn.Sequential(
    torch.nn.Conv2d(3, 32, 3, padding=1), torch.nn.BatchNorm2d(32), torch.nn.ReLU(),
    torch.nn.MaxPool2d(2), torch.nn.Conv2d(32, 64, 3, padding=1), torch.nn.GroupNorm(8, 64),
    torch.nn.GELU(), torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(), torch.nn.Linear(64, 10),
    torch.nn.Softmax(dim=1)).to(dev)
opt = torch.optim.AdamW(net.parameters())
for dtype in (torch.float32, torch.float16):
    with torch.autocast("cuda", dtype=dtype, enabled=dtype != torch.float32):
        for _ in range(2):
            x = torch.randn(16, 3, 64, 64, device=dev)
            loss = torch.nn.functional.cross_entropy(net(x), torch.randint(0, 10, (16,), device=dev))
            loss.backward(); opt.step(); opt.zero_grad()
e = torch.nn.Embedding(1000, 96).to(dev)
idx = torch.randint(0, 1000, (33, 7), device=dev)
torch.nn.functional.layer_norm(e(idx), (96,)).sum().backward()
torch.topk(torch.randn(5000, device=dev), 10); torch.cumsum(torch.randn(3000, device=dev), 0)
torch.cuda.synchronize()

module railyard.example/podorder

go 1.19

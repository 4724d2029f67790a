import Foundation

/// A GS1 datasheet with all four packaging levels (FEEDS.md §10), for the
/// adapter's, the snapshot's and `q=g`'s tests: a base unit whose dimensions
/// come in three units and whose failed `imageUrl` supplies no image, an
/// inner pack whose failed `brandName` supplies no brand, a case, a pallet;
/// then a CASE that holds that PALLET (rejected `bad_hierarchy`) and a base
/// unit with a height in inches (kept, the height left out with a warning).
/// `xml` holds all but the wrong case, which alone would reject a reference
/// file over its 5 % reject limit; `withWrongCase` adds it, for the adapter.
public enum FourLevelDatasheet {
    public static let base = "04740086001008"
    public static let pack = "14740086001005"
    public static let caseGTIN = "24740086001002"
    public static let pallet = "34740086001009"
    public static let wrongCase = "44740086001006"
    public static let inches = "54740086001003"

    public static let xml = """
        <?xml version="1.0" encoding="UTF-8"?>
        <tradeItemDatasheet xmlns="urn:gs1:datasheet:1">
          <tradeItem>
            <gtin>\(base)</gtin>
            <unitDescriptor>BASE_UNIT_OR_EACH</unitDescriptor>
            <informationProviderGLN>4740000000100</informationProviderGLN>
            <brandName>PARAMAX</brandName>
            <description lang="et">PARAMAX TBL 500MG N20</description>
            <description lang="en">PARAMAX TAB 500MG 20PCS</description>
            <description lang="ru">ПАРАМАКС ТАБ 500МГ N20</description>
            <netContent unit="H87">20</netContent>
            <height unit="CMT">2</height><width unit="MTR">0.06</width><depth unit="MMT">95</depth>
            <grossWeight unit="KGM">0.015</grossWeight>
            <imageUrl>http://images.example/4740086001008.jpg</imageUrl>
            <inspection date="2015-03-02">
              <attribute id="brandName" result="1"/>
              <attribute id="description" result="2"/>
              <attribute id="imageUrl" result="3"/>
            </inspection>
          </tradeItem>
          <tradeItem>
            <gtin>\(pack)</gtin>
            <unitDescriptor>PACK_OR_INNER_PACK</unitDescriptor>
            <brandName>PARAMAX</brandName>
            <description lang="et">PARAMAX TBL 500MG N20, 10 KARPI</description>
            <child gtin="\(base)" quantity="10"/>
            <inspection><attribute id="brandName" result="3"/><attribute id="netContent" result="0"/></inspection>
          </tradeItem>
          <tradeItem>
            <gtin>\(caseGTIN)</gtin>
            <unitDescriptor>CASE</unitDescriptor>
            <child gtin="\(pack)" quantity="12"/>
          </tradeItem>
          <tradeItem>
            <gtin>\(pallet)</gtin>
            <unitDescriptor>PALLET</unitDescriptor>
            <child gtin="\(caseGTIN)" quantity="40"/>
          </tradeItem>
          <tradeItem>
            <gtin>\(inches)</gtin>
            <unitDescriptor>BASE_UNIT_OR_EACH</unitDescriptor>
            <brandName>INCHES</brandName>
            <height unit="INH">3</height>
            <width unit="MMT">wide</width>
          </tradeItem>
        </tradeItemDatasheet>

        """

    public static let withWrongCase = xml.replacingOccurrences(of: "</tradeItemDatasheet>", with: """
          <tradeItem>
            <gtin>\(wrongCase)</gtin>
            <unitDescriptor>CASE</unitDescriptor>
            <child gtin="\(pallet)" quantity="2"/>
          </tradeItem>
        </tradeItemDatasheet>
        """)
}
